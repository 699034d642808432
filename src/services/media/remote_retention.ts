// Dropping other servers' media from our storage after a while (MEDIA_CACHE_RETENTION_DAYS, daily,
// as Mastodon's media cache retention period; unset keeps them), and on demand with `rookery media
// remove` (as `tootctl media remove`). The rows stay: a dropped attachment is fetched again when it
// is next asked for, a dropped avatar or header is shown by its remote URL until the account's next
// refresh copies it again.
import { sql } from "kysely";
import { scheduleRepeat } from "../../jobs/repeat.ts";
import { stillKey } from "../../media/images.ts";
import { mediaStorage } from "../../media/storage.ts";
import type { Runtime } from "../../runtime.ts";
import { publishEvent } from "../../streaming/events.ts";

declare module "../../jobs/queue.ts" {
  interface JobPayloads {
    /** Drops the cached remote attachments older than MEDIA_CACHE_RETENTION_DAYS; runs every day. */
    "media.expire_cache": Record<string, never>;
  }
}

const DAY_MS = 86_400_000;
const BATCH = 100;

export interface RemovedMedia {
  attachments: number;
  profiles: number;
  files: number;
  bytes: number;
}

export interface RemoveOptions {
  olderThanDays: number;
  /** Also the avatars and headers of remote accounts that no local account follows. */
  pruneProfiles?: boolean;
  progress?: (done: number) => void;
}

/** Deletes stored files, counting them and their bytes. */
async function dropFiles(rt: Runtime, keys: (string | null)[], out: RemovedMedia): Promise<void> {
  const storage = mediaStorage(rt.config);
  for (const key of keys) {
    if (!key) continue;
    const size = await storage.size(key);
    await storage.delete(key);
    if (size > 0) {
      out.files++;
      out.bytes += size;
    }
  }
}

/** Drops cached remote media older than `olderThanDays`; what it freed. */
export async function removeCachedMedia(rt: Runtime, options: RemoveOptions): Promise<RemovedMedia> {
  const before = new Date(Date.now() - options.olderThanDays * DAY_MS);
  const out: RemovedMedia = { attachments: 0, profiles: 0, files: 0, bytes: 0 };
  for (;;) {
    const batch = await rt.db
      .selectFrom("media_attachments")
      .select(["id", "status_id", "file_key", "preview_key"])
      .where("remote_state", "=", "cached")
      .where("created_at", "<", before)
      .orderBy("id")
      .limit(BATCH)
      .execute();
    if (batch.length === 0) break;
    // The rows first: a file gone while a row still names it would be a broken image.
    await rt.db
      .updateTable("media_attachments")
      .set({ remote_state: "lazy", file_key: null, preview_key: null, file_size: 0, updated_at: new Date() })
      .where(
        "id",
        "in",
        batch.map((m) => m.id),
      )
      .where("remote_state", "=", "cached")
      .execute();
    const statusIds = [...new Set(batch.flatMap((m) => (m.status_id ? [m.status_id] : [])))];
    if (statusIds.length > 0) await publishEvent(rt, "statuses.changed", { ids: statusIds });
    for (const m of batch) await dropFiles(rt, [m.file_key, m.preview_key], out);
    out.attachments += batch.length;
    options.progress?.(out.attachments);
  }
  if (options.pruneProfiles) await pruneProfiles(rt, before, out, options.progress);
  return out;
}

/** The copies of avatars and headers of remote accounts nobody here follows, unchanged since `before`. */
async function pruneProfiles(
  rt: Runtime,
  before: Date,
  out: RemovedMedia,
  progress?: (done: number) => void,
): Promise<void> {
  let after = "0";
  for (;;) {
    const batch = await rt.db
      .selectFrom("accounts as a")
      .select(["a.id", "a.avatar_file", "a.header_file"])
      .where("a.domain", "is not", null)
      .where((eb) => eb.or([eb("a.avatar_file", "is not", null), eb("a.header_file", "is not", null)]))
      .where("a.updated_at", "<", before)
      .where("a.id", ">", after)
      .where(
        sql<boolean>`not exists (select 1 from follows f join accounts l on l.id = f.account_id where f.target_account_id = a.id and l.domain is null)`,
      )
      .orderBy("a.id")
      .limit(BATCH)
      .execute();
    if (batch.length === 0) return;
    after = batch.at(-1)!.id;
    for (const a of batch) {
      await rt.db
        .updateTable("accounts")
        .set({ avatar_file: null, header_file: null })
        .where("id", "=", a.id)
        .execute();
      await publishEvent(rt, "account.changed", { id: a.id });
      const keys = [a.avatar_file, a.header_file].flatMap((k) =>
        k ? [k, ...(stillKey(k) !== k ? [stillKey(k)] : [])] : [],
      );
      await dropFiles(rt, keys, out);
      out.profiles++;
    }
    progress?.(out.attachments + out.profiles);
  }
}

/** Job: applies MEDIA_CACHE_RETENTION_DAYS, then schedules its next run. */
export async function expireCachedMedia(rt: Runtime): Promise<void> {
  try {
    const days = rt.config.media.cacheRetentionDays;
    if (days !== null) await removeCachedMedia(rt, { olderThanDays: days });
  } finally {
    await scheduleCacheExpiry(rt);
  }
}

/** Makes sure the daily run is scheduled, when a retention period is set (the worker calls this when it starts). */
export async function scheduleCacheExpiry(rt: Runtime): Promise<void> {
  if (rt.config.media.cacheRetentionDays !== null) await scheduleRepeat(rt, "media.expire_cache", DAY_MS);
}
