// How the job queue is doing, by job type: what waits, what is due and for how long the oldest due
// job has waited, what is being retried and what gave up. Read by the metrics' gauges and by the
// web admin's dashboard.
import { sql } from "kysely";
import type { Runtime } from "../../runtime.ts";

export interface JobTypeHealth {
  type: string;
  /** Due now or later, not given up. */
  waiting: number;
  /** Due now and not done yet. */
  due: number;
  /** Seconds the longest-waiting due job has waited (0 when none is due). */
  oldestDueSeconds: number;
  /** Waiting jobs that failed before and will be tried again. */
  retrying: number;
  /** Jobs that used up their attempts, kept for inspection. */
  dead: number;
}

export async function jobQueueHealth(rt: Runtime): Promise<JobTypeHealth[]> {
  const now = new Date();
  const { rows } = await sql<{
    type: string;
    waiting: unknown;
    due: unknown;
    oldest: string | Date | null;
    retrying: unknown;
    dead: unknown;
  }>`
    select type,
      sum(case when failed_at is null then 1 else 0 end) as waiting,
      sum(case when failed_at is null and run_at <= ${now} then 1 else 0 end) as due,
      min(case when failed_at is null and run_at <= ${now} then run_at end) as oldest,
      sum(case when failed_at is null and attempts > 0 then 1 else 0 end) as retrying,
      sum(case when failed_at is not null then 1 else 0 end) as dead
    from jobs group by type order by type`.execute(rt.db);
  return rows.map((row) => ({
    type: row.type,
    waiting: Number(row.waiting ?? 0),
    due: Number(row.due ?? 0),
    oldestDueSeconds: row.oldest === null ? 0 : Math.max(0, (now.getTime() - new Date(row.oldest).getTime()) / 1000),
    retrying: Number(row.retrying ?? 0),
    dead: Number(row.dead ?? 0),
  }));
}
