// The dashboard (Mastodon's Admin::DashboardController): the measures and dimensions of the last
// 30 days and the retention of recent sign-ups, as the admin API computes them, what waits for staff (open reports, sign-ups to approve), the storage
// used, and the health of the job queue and of federation.
import type { Runtime } from "../../runtime.ts";
import { failingServers, type ServerHealth } from "../federation/server_health.ts";
import { type JobTypeHealth, jobQueueHealth } from "../operations/job_queue.ts";
import { type Cohort, type DimensionData, dimensions, type MeasureData, measures, retention } from "./measures.ts";
import { requirePermission, type Staff } from "./staff.ts";

/** The measures Mastodon's dashboard shows, in its order. */
export const DASHBOARD_MEASURES = [
  "active_users",
  "new_users",
  "interactions",
  "opened_reports",
  "resolved_reports",
] as const;

/** The dimensions it shows beside them (top values over the same days), in its order. */
export const DASHBOARD_DIMENSIONS = ["sources", "languages", "servers", "software_versions"] as const;
/** How many of each dimension's top values. */
const TOP = 8;
/** Months of sign-up cohorts whose retention it shows, this one included. */
const RETENTION_MONTHS = 6;

/** Days the measures cover, today included. */
export const DASHBOARD_DAYS = 30;
const DAY_MS = 86_400_000;

export interface Dashboard {
  /** The first and last day of the measures (midnight UTC). */
  range: { start: Date; end: Date };
  measures: MeasureData[];
  dimensions: DimensionData[];
  /** Monthly sign-up cohorts, oldest first, and how many of each came back in each later month. */
  retention: Cohort[];
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
  const months = { start: new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth() - RETENTION_MONTHS + 1, 1)), end };
  const [measured, dimensioned, cohorts, space, open, pending, jobs, failing] = await Promise.all([
    measures(rt, actor, [...DASHBOARD_MEASURES], range, {}),
    dimensions(rt, actor, [...DASHBOARD_DIMENSIONS], range, {}, TOP),
    retention(rt, actor, months, "month"),
    dimensions(rt, actor, ["space_usage"], range, {}, TOP),
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
    dimensions: dimensioned,
    retention: cohorts,
    openReports: Number(open.n),
    pendingAccounts: Number(pending.n),
    space: space[0]?.data ?? [],
    jobs,
    failingServers: failing,
  };
}
