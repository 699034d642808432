// Removing media nobody uses: uploads never attached (or let go by a deleted status) for more than a
// day, and media still pointing at a deleted status. An hourly job does it; `rookery media
// remove-orphans` does it on demand. Also what `rookery media usage` reports, and the removal of
// every file of a deleted account.
import { sql } from "kysely";
import type { Db } from "../../db/index.ts";
import { scheduleRepeat } from "../../jobs/repeat.ts";
import type { Runtime } from "../../runtime.ts";
import { removeProfileImageFiles } from "../accounts/profile.ts";
import type { MediaRow } from "./rows.ts";
import { removeMediaRows } from "./upload.ts";

declare module "../../jobs/queue.ts" {
  interface JobPayloads {
    /** Removes orphaned media; runs every hour. */
    "media.cleanup": Record<string, never>;
  }
}

export const ORPHAN_AGE_MS = 24 * 3600_000;
const CLEANUP_EVERY_MS = 3600_000;
const BATCH = 100;

/** Lets a deleted status's media go: they stay a day for redrafting, then cleanup removes them. */
export async function releaseStatusMedia(db: Db, statusId: string, at: Date): Promise<void> {
  await db
    .updateTable("media_attachments")
    .set({ status_id: null, position: null, updated_at: at })
    .where("status_id", "=", statusId)
    .execute();
}

/** Lets a cancelled scheduled status's media go. */
export async function releaseScheduledMedia(db: Db, scheduledId: string, at: Date): Promise<void> {
  await db
    .updateTable("media_attachments")
    .set({ scheduled_status_id: null, updated_at: at })
    .where("scheduled_status_id", "=", scheduledId)
    .execute();
}

function orphans(db: Db, before: Date) {
  return db
    .selectFrom("media_attachments as m")
    .selectAll("m")
    .where((eb) =>
      eb.or([
        eb.and([
          eb("m.status_id", "is", null),
          eb("m.scheduled_status_id", "is", null),
          eb("m.updated_at", "<", before),
        ]),
        eb("m.status_id", "in", eb.selectFrom("statuses as s").select("s.id").where("s.deleted_at", "is not", null)),
      ]),
    );
}

/** Removes orphaned media in batches; `progress` hears how many of how many are done. */
export async function removeOrphans(
  rt: Runtime,
  options: { olderThanMs?: number; progress?: (done: number, total: number) => void } = {},
): Promise<number> {
  const before = new Date(Date.now() - (options.olderThanMs ?? ORPHAN_AGE_MS));
  const counted = await orphans(rt.db, before)
    .clearSelect()
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .executeTakeFirstOrThrow();
  const total = Number(counted.n);
  let done = 0;
  options.progress?.(0, total);
  while (done < total) {
    const batch: MediaRow[] = await orphans(rt.db, before).orderBy("m.id").limit(BATCH).execute();
    if (batch.length === 0) break;
    await removeMediaRows(rt, batch);
    done += batch.length;
    options.progress?.(Math.min(done, total), total);
  }
  return done;
}

/** Job: removes orphans, then makes sure the next run is scheduled (once, however often this runs). */
export async function cleanupMedia(rt: Runtime): Promise<void> {
  try {
    await removeOrphans(rt);
  } finally {
    await scheduleMediaCleanup(rt);
  }
}

/** Makes sure one future cleanup job is scheduled (the worker calls this when it starts). */
export function scheduleMediaCleanup(rt: Runtime): Promise<void> {
  return scheduleRepeat(rt, "media.cleanup", CLEANUP_EVERY_MS);
}

export interface MediaUsage {
  type: string;
  state: string;
  count: number;
  bytes: number;
}

/** Counts and bytes of stored media, by type and by whether a status uses them. */
export async function mediaUsage(db: Db): Promise<MediaUsage[]> {
  const state = sql<string>`CASE WHEN status_id IS NOT NULL THEN 'attached' WHEN scheduled_status_id IS NOT NULL THEN 'scheduled' ELSE 'unattached' END`;
  const rows = await db
    .selectFrom("media_attachments")
    .select((eb) => [
      "type",
      state.as("state"),
      eb.fn.countAll<number | string>().as("count"),
      eb.fn.sum<number | string | null>("file_size").as("bytes"),
    ])
    .groupBy(["type", state])
    .orderBy("type")
    .execute();
  return rows.map((r) => ({ type: r.type, state: r.state, count: Number(r.count), bytes: Number(r.bytes ?? 0) }));
}

/**
 * Removes every file of a purged account: its media attachments (rows and files), its avatar
 * and its header. Safe to run twice: what is gone is not found again.
 */
export async function removeAccountMedia(rt: Runtime, { accountId }: { accountId: string }): Promise<void> {
  for (;;) {
    const batch = await rt.db
      .selectFrom("media_attachments")
      .selectAll()
      .where("account_id", "=", accountId)
      .orderBy("id")
      .limit(BATCH)
      .execute();
    if (batch.length === 0) break;
    await removeMediaRows(rt, batch);
  }
  const images = await rt.db
    .selectFrom("accounts")
    .select(["avatar_file", "header_file"])
    .where("id", "=", accountId)
    .executeTakeFirst();
  if (!images || (images.avatar_file === null && images.header_file === null)) return;
  await rt.db
    .updateTable("accounts")
    .set({ avatar_file: null, header_file: null })
    .where("id", "=", accountId)
    .execute();
  await removeProfileImageFiles(rt, [images.avatar_file, images.header_file]);
}
