// Jobs that repeat on their own: each run schedules the next, and a worker starting makes sure one
// is waiting, so that however many processes start or runs happen, one future run is scheduled.
import type { Runtime } from "../runtime.ts";
import type { JobPayloads } from "./queue.ts";

type RepeatingType = {
  [T in keyof JobPayloads]: JobPayloads[T] extends Record<string, never> ? T : never;
}[keyof JobPayloads];

/** Schedules a run of `type` `everyMs` from now, unless one is waiting already. */
export async function scheduleRepeat(rt: Runtime, type: RepeatingType, everyMs: number): Promise<void> {
  const pending = await rt.db
    .selectFrom("jobs")
    .select("id")
    .where("type", "=", type)
    .where("failed_at", "is", null)
    .where("run_at", ">", new Date())
    .executeTakeFirst();
  if (!pending) await rt.queue.enqueue(type, {} as JobPayloads[typeof type], { runAt: new Date(Date.now() + everyMs) });
}
