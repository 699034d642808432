// Starting the job worker of a process, with the jobs that repeat on their own.
import type { Runtime } from "../runtime.ts";
import { restoreFeeds, scheduleTrim } from "../services/feeds/maintenance.ts";
import { scheduleMediaCleanup } from "../services/media/cleanup.ts";
import { dispatcher } from "./handlers.ts";

export async function startWorker(rt: Runtime): Promise<void> {
  await restoreFeeds(rt);
  await rt.queue.start(dispatcher(rt));
  await scheduleTrim(rt);
  await scheduleMediaCleanup(rt);
}
