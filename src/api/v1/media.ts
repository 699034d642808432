import { z } from "zod";
import { unprocessable } from "../../domain/errors.ts";
import type { Ctx } from "../../http/hono.ts";
import { params, router } from "../../http/hono.ts";
import { fileParam } from "../../http/params.ts";
import { parse, pathId, zString } from "../../http/validate.ts";
import { renderMedia } from "../../serializers/media_attachment.ts";
import type { MediaRow } from "../../services/media/rows.ts";
import { ownMedia } from "../../services/media/rows.ts";
import { createMedia, deleteMedia, updateMedia } from "../../services/media/upload.ts";
import { currentUser, requireUser } from "../auth.ts";

export const media = router();

const uploadSchema = z.object({ description: zString(), focus: zString() });

/** Reads an upload's parameters: `file` (a file or a base64 data: URI), `thumbnail`, `description`, `focus`. */
export async function uploadOf(c: Ctx) {
  const all = await params(c);
  const p = parse(uploadSchema, all);
  const file = fileParam(all.file, "file");
  if (!file) throw unprocessable("Validation failed: File can't be blank");
  return { file, thumbnail: fileParam(all.thumbnail, "thumbnail"), description: p.description, focus: p.focus };
}

/** 200 with the entity when processed; 206 (or 202 on upload) while a job still works on it; 422 if it failed. */
export function mediaResponse(c: Ctx, row: MediaRow, pendingStatus: 202 | 206) {
  if (row.processing === "failed") throw unprocessable("Error processing the uploaded media");
  return c.json(renderMedia(c.get("rt").config, row), row.processing === "pending" ? pendingStatus : 200);
}

// The older form: answers once the file is processed, whatever it is.
media.post("/api/v1/media", requireUser("write:media"), async (c) => {
  const row = await createMedia(c.get("rt"), currentUser(c).accountId, await uploadOf(c), true);
  return mediaResponse(c, row, 202);
});

media.get("/api/v1/media/:id", requireUser("write:media"), async (c) => {
  const row = await ownMedia(c.get("rt"), currentUser(c).accountId, pathId(c.req.param("id")), { unattached: true });
  return mediaResponse(c, row, 206);
});

media.put("/api/v1/media/:id", requireUser("write:media"), async (c) => {
  const all = await params(c);
  const p = parse(uploadSchema, all);
  const row = await updateMedia(c.get("rt"), currentUser(c).accountId, pathId(c.req.param("id")), {
    description: p.description,
    focus: p.focus,
    thumbnail: fileParam(all.thumbnail, "thumbnail"),
  });
  return mediaResponse(c, row, 206);
});

media.delete("/api/v1/media/:id", requireUser("write:media"), async (c) => {
  await deleteMedia(c.get("rt"), currentUser(c).accountId, pathId(c.req.param("id")));
  return c.json({});
});
