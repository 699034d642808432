import { z } from "zod";
import { unprocessable } from "../../domain/errors.ts";
import { WORD_MAX } from "../../domain/lengths.ts";
import { params, router } from "../../http/hono.ts";
import { parse, pathId, zString } from "../../http/validate.ts";
import type { Runtime } from "../../runtime.ts";
import { renderScheduled } from "../../serializers/scheduled_status.ts";
import { loadMediaByIds } from "../../services/media/rows.ts";
import {
  cancelScheduled,
  listScheduled,
  ownScheduled,
  reschedule,
  type ScheduledStatus,
} from "../../services/statuses/scheduled.ts";
import { currentUser, requireUser } from "../auth.ts";
import { pageParams, setLinkHeader } from "../pagination.ts";

export const scheduledStatuses = router();

/** Renders scheduled statuses with their media, loaded in one query. */
export async function renderScheduledList(rt: Runtime, rows: ScheduledStatus[]) {
  const media = await loadMediaByIds(
    rt.db,
    rows.flatMap((r) => r.params.media_ids),
  );
  const byId = new Map(media.map((m) => [m.id, m]));
  return rows.map((r) => renderScheduled(rt.config, r, byId));
}

const renderOne = async (rt: Runtime, row: ScheduledStatus) => (await renderScheduledList(rt, [row]))[0];

scheduledStatuses.get("/api/v1/scheduled_statuses", requireUser("read:statuses"), async (c) => {
  const result = await listScheduled(c.get("rt"), currentUser(c).accountId, pageParams(await params(c)));
  setLinkHeader(c, c.get("rt").config.origin, result);
  return c.json(await renderScheduledList(c.get("rt"), result.items));
});

scheduledStatuses.get("/api/v1/scheduled_statuses/:id", requireUser("read:statuses"), async (c) =>
  c.json(
    await renderOne(c.get("rt"), await ownScheduled(c.get("rt"), currentUser(c).accountId, pathId(c.req.param("id")))),
  ),
);

scheduledStatuses.put("/api/v1/scheduled_statuses/:id", requireUser("write:statuses"), async (c) => {
  const p = parse(z.object({ scheduled_at: zString(WORD_MAX) }), await params(c));
  const id = pathId(c.req.param("id"));
  const me = currentUser(c).accountId;
  if (!p.scheduled_at) return c.json(await renderOne(c.get("rt"), await ownScheduled(c.get("rt"), me, id)));
  const at = new Date(p.scheduled_at);
  if (Number.isNaN(at.getTime())) throw unprocessable("Validation failed: Scheduled at is invalid");
  return c.json(await renderOne(c.get("rt"), await reschedule(c.get("rt"), me, id, at)));
});

scheduledStatuses.delete("/api/v1/scheduled_statuses/:id", requireUser("write:statuses"), async (c) => {
  await cancelScheduled(c.get("rt"), currentUser(c).accountId, pathId(c.req.param("id")));
  return c.json({});
});
