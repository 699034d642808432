// What the notification entities (v1, grouped v2, requests) are rendered from, for one viewer, in
// batches: the accounts, statuses and reports they name.
import type { Runtime } from "../../runtime.ts";
import { type AccountView, loadAccountViews } from "../accounts/views.ts";
import { loadReportViews, type ReportView } from "../moderation/report_views.ts";
import { loadStatusViews, type StatusView } from "../statuses/views.ts";
import type { NotificationGroup } from "./groups.ts";
import type { NotificationRow } from "./read.ts";
import type { NotificationRequestRow } from "./requests.ts";

export interface NotificationViews {
  accounts: Map<string, AccountView>;
  /** By id; a status missing here is gone (or hidden), and takes its notification along. */
  statuses: Map<string, StatusView>;
  reports: Map<string, ReportView>;
}

const present = (ids: (string | null)[]) => [...new Set(ids.filter((id): id is string => id !== null))];

async function load(
  rt: Runtime,
  viewerId: string,
  accountIds: string[],
  statusIds: (string | null)[],
  reportIds: (string | null)[],
): Promise<NotificationViews> {
  const [accounts, statuses, reports] = await Promise.all([
    loadAccountViews(rt, present(accountIds)),
    loadStatusViews(rt, viewerId, present(statusIds), { context: "notifications" }),
    loadReportViews(rt, present(reportIds)),
  ]);
  return { accounts, statuses: new Map(statuses.map((v) => [v.shared.row.id, v])), reports };
}

export const loadNotificationViews = (rt: Runtime, viewerId: string, rows: NotificationRow[]) =>
  load(
    rt,
    viewerId,
    rows.map((r) => r.from_account_id),
    rows.map((r) => r.status_id),
    rows.map((r) => r.report_id),
  );

export const loadGroupViews = (rt: Runtime, viewerId: string, groups: NotificationGroup[]) =>
  load(
    rt,
    viewerId,
    groups.flatMap((g) => g.sampleAccountIds),
    groups.map((g) => g.statusId),
    groups.map((g) => g.reportId),
  );

export const loadRequestViews = (rt: Runtime, viewerId: string, rows: NotificationRequestRow[]) =>
  load(
    rt,
    viewerId,
    rows.map((r) => r.from_account_id),
    rows.map((r) => r.last_status_id),
    [],
  );
