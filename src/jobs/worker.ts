// Starting the job worker of a process, with the jobs that repeat on their own.
import type { Runtime } from "../runtime.ts";
import { restoreFeeds, scheduleTrim } from "../services/feeds/maintenance.ts";
import { scheduleMediaCleanup } from "../services/media/cleanup.ts";
import { scheduleCacheExpiry } from "../services/media/remote_retention.ts";
import { dispatcher, limitJobs } from "./handlers.ts";

export async function startWorker(rt: Runtime): Promise<void> {
  await restoreFeeds(rt);
  limitJobs(rt.queue, "main");
  // PostgreSQL may have lost the feeds (unlogged tables) in a crash while this process lived on.
  await rt.queue.start(dispatcher(rt), { onReconnect: () => restoreFeeds(rt) });
  await scheduleTrim(rt);
  await scheduleMediaCleanup(rt);
  await scheduleCacheExpiry(rt);
}
