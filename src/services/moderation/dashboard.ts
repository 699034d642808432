// The dashboard (Mastodon's Admin::DashboardController): the measures of the last 30 days as the
// admin API computes them, what waits for staff (open reports, sign-ups to approve), the storage
// used, and the health of the job queue and of federation.
import type { Runtime } from "../../runtime.ts";
import { failingServers, type ServerHealth } from "../federation/server_health.ts";
import { type JobTypeHealth, jobQueueHealth } from "../operations/job_queue.ts";
import { type DimensionData, dimensions, type MeasureData, measures } from "./measures.ts";
import { requirePermission, type Staff } from "./staff.ts";

/** The measures Mastodon's dashboard shows, in its order. */
export const DASHBOARD_MEASURES = [
  "active_users",
  "new_users",
  "interactions",
  "opened_reports",
  "resolved_reports",
] as const;

/** Days the measures cover, today included. */
export const DASHBOARD_DAYS = 30;
const DAY_MS = 86_400_000;

export interface Dashboard {
  /** The first and last day of the measures (midnight UTC). */
  range: { start: Date; end: Date };
  measures: MeasureData[];
  openReports: number;
  pendingAccounts: number;
  /** The database's size and the media's, in bytes. */
  space: DimensionData["data"];
  jobs: JobTypeHealth[];
  failingServers: ServerHealth[];
}

export async function dashboard(rt: Runtime, actor: Staff): Promise<Dashboard> {
  requirePermission(actor, "viewDashboard");
  const end = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS);
  const range = { start: new Date(end.getTime() - (DASHBOARD_DAYS - 1) * DAY_MS), end };
  const [measured, space, open, pending, jobs, failing] = await Promise.all([
    measures(rt, actor, [...DASHBOARD_MEASURES], range, {}),
    dimensions(rt, actor, ["space_usage"], range, {}, 10),
    rt.db
      .selectFrom("reports")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .where("action_taken_at", "is", null)
      .executeTakeFirstOrThrow(),
    rt.db
      .selectFrom("users")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .where("approved", "=", false)
      .executeTakeFirstOrThrow(),
    jobQueueHealth(rt),
    failingServers(rt),
  ]);
  return {
    range,
    measures: measured,
    openReports: Number(open.n),
    pendingAccounts: Number(pending.n),
    space: space[0]?.data ?? [],
    jobs,
    failingServers: failing,
  };
}
