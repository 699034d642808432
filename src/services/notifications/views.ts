// What the notification entities (v1, grouped v2, requests) are rendered from, for one viewer, in
// batches: the accounts, statuses and reports they name.
import type { Runtime } from "../../runtime.ts";
import { type AccountView, loadAccountViews } from "../accounts/views.ts";
import { loadReportViews, type ReportView } from "../moderation/report_views.ts";
import { loadSeverances, type SeveranceView } from "../moderation/severances.ts";
import { loadWarnings, type WarningView } from "../moderation/warnings.ts";
import { loadStatusViews, type StatusView } from "../statuses/views.ts";
import type { NotificationGroup } from "./groups.ts";
import type { NotificationRow } from "./read.ts";
import type { NotificationRequestRow } from "./requests.ts";

export interface NotificationViews {
  accounts: Map<string, AccountView>;
  /** By id; a status missing here is gone (or hidden), and takes its notification along. */
  statuses: Map<string, StatusView>;
  reports: Map<string, ReportView>;
  warnings: Map<string, WarningView>;
  severances: Map<string, SeveranceView>;
}

const present = (ids: (string | null)[]) => [...new Set(ids.filter((id): id is string => id !== null))];

interface Named {
  accountIds: string[];
  statusIds: (string | null)[];
  reportIds: (string | null)[];
  warningIds: (string | null)[];
  severanceIds: (string | null)[];
}

async function load(rt: Runtime, viewerId: string, n: Named): Promise<NotificationViews> {
  const [accounts, statuses, reports, warnings, severances] = await Promise.all([
    loadAccountViews(rt, present(n.accountIds)),
    loadStatusViews(rt, viewerId, present(n.statusIds), { context: "notifications" }),
    loadReportViews(rt, present(n.reportIds)),
    loadWarnings(rt, present(n.warningIds)),
    loadSeverances(rt, present(n.severanceIds)),
  ]);
  return { accounts, statuses: new Map(statuses.map((v) => [v.shared.row.id, v])), reports, warnings, severances };
}

export const loadNotificationViews = (rt: Runtime, viewerId: string, rows: NotificationRow[]) =>
  load(rt, viewerId, {
    accountIds: rows.map((r) => r.from_account_id),
    statusIds: rows.map((r) => r.status_id),
    reportIds: rows.map((r) => r.report_id),
    warningIds: rows.map((r) => r.account_warning_id),
    severanceIds: rows.map((r) => r.account_severance_id),
  });

export const loadGroupViews = (rt: Runtime, viewerId: string, groups: NotificationGroup[]) =>
  load(rt, viewerId, {
    accountIds: groups.flatMap((g) => g.sampleAccountIds),
    statusIds: groups.map((g) => g.statusId),
    reportIds: groups.map((g) => g.reportId),
    warningIds: groups.map((g) => g.accountWarningId),
    severanceIds: groups.map((g) => g.accountSeveranceId),
  });

export const loadRequestViews = (rt: Runtime, viewerId: string, rows: NotificationRequestRow[]) =>
  load(rt, viewerId, {
    accountIds: rows.map((r) => r.from_account_id),
    statusIds: rows.map((r) => r.last_status_id),
    reportIds: [],
    warningIds: [],
    severanceIds: [],
  });
