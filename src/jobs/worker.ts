// Starting the job worker of a process, with the jobs that repeat on their own.
import type { Runtime } from "../runtime.ts";
import { restoreFeeds, scheduleTrim } from "../services/feeds/maintenance.ts";
import { scheduleMediaCleanup } from "../services/media/cleanup.ts";
import { scheduleCacheExpiry } from "../services/media/remote_retention.ts";
import { dispatcher } from "./handlers.ts";

/**
 * The job types that never take every slot of a queue. A link's page may take its whole deadline
 * to answer, and so may other servers' media, however many statuses bring them at once. Media
 * downloads run in the main thread only (`web` threads leave them), where one limit of downloads
 * per host holds for the whole process (src/media/downloads.ts).
 */
export function limitJobTypes(rt: Runtime, thread: "main" | "web"): void {
  rt.queue.limit("cards.fetch", 2);
  rt.queue.limit("media.cache", thread === "main" ? 3 : 0);
}

export async function startWorker(rt: Runtime): Promise<void> {
  await restoreFeeds(rt);
  limitJobTypes(rt, "main");
  // PostgreSQL may have lost the feeds (unlogged tables) in a crash while this process lived on.
  await rt.queue.start(dispatcher(rt), { onReconnect: () => restoreFeeds(rt) });
  await scheduleTrim(rt);
  await scheduleMediaCleanup(rt);
  await scheduleCacheExpiry(rt);
}
