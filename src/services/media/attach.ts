// Attaching media to statuses (media_ids on posting, editing and scheduling), with Mastodon's rules:
// at most MAX_MEDIA_ATTACHMENTS, one's own, processed, not used by another status, and a video or
// audio alone.
import type { Db } from "../../db/index.ts";
import type { EditedMedia } from "../../db/schema.ts";
import { unprocessable } from "../../domain/errors.ts";
import type { Runtime } from "../../runtime.ts";
import { loadMediaByIds, loadMediaByStatus, type MediaRow } from "./rows.ts";

export interface AttachOwner {
  accountId: string;
  /** The status being edited: its own media may be named again. */
  statusId?: string;
  /** The scheduled status being published: the media it kept may be named. */
  scheduledId?: string;
}

/** The media `ids` name, in that order, checked for attaching; throws 422 with Mastodon's messages. */
export async function checkMedia(rt: Runtime, owner: AttachOwner, ids: string[]): Promise<MediaRow[]> {
  if (ids.length === 0) return [];
  const max = rt.config.limits.mediaAttachments;
  if (ids.length > max) throw unprocessable(`Validation failed: Cannot attach more than ${max} files`);
  if (new Set(ids).size !== ids.length) throw unprocessable("Validation failed: The same media is attached twice");
  const rows = (await loadMediaByIds(rt.db, ids)).filter(
    (m) =>
      m.account_id === owner.accountId &&
      (m.status_id === null || m.status_id === owner.statusId) &&
      (m.scheduled_status_id === null || m.scheduled_status_id === owner.scheduledId),
  );
  const found = new Set(rows.map((r) => r.id));
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length > 0) throw unprocessable(`Validation failed: Media ${missing.join(", ")} not found`);
  if (rows.some((r) => r.processing === "pending")) {
    throw unprocessable("Cannot attach files that have not finished processing. Try again in a moment!");
  }
  if (rows.some((r) => r.processing === "failed")) {
    throw unprocessable("Validation failed: Media could not be processed and cannot be attached");
  }
  if (rows.length > 1 && rows.some((r) => r.type === "video" || r.type === "audio")) {
    throw unprocessable("Validation failed: Cannot attach a video or audio to a post that already contains images");
  }
  return rows;
}

/**
 * Makes `media` the status's media, in order. Media an edit takes out keep their status (the
 * history shows them) without a place.
 */
export async function setStatusMedia(db: Db, statusId: string, media: MediaRow[], at: Date): Promise<void> {
  await db
    .updateTable("media_attachments")
    .set({ position: null, updated_at: at })
    .where("status_id", "=", statusId)
    .where("position", "is not", null)
    .execute();
  for (const [position, m] of media.entries()) {
    await db
      .updateTable("media_attachments")
      .set({ status_id: statusId, position, scheduled_status_id: null, updated_at: at })
      .where("id", "=", m.id)
      .execute();
  }
}

/** Reserves media for a scheduled status, so that cleanup leaves them and nothing else attaches them. */
export async function reserveMedia(db: Db, scheduledId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable("media_attachments").set({ scheduled_status_id: scheduledId }).where("id", "in", ids).execute();
}

/** What a version of the status showed, for its edit history. */
export async function mediaSnapshot(db: Db, statusId: string): Promise<EditedMedia[]> {
  const media = (await loadMediaByStatus(db, [statusId])).get(statusId) ?? [];
  return media.map((m) => ({ id: m.id, description: m.description, focus: m.meta.focus ?? null }));
}
