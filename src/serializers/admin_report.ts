// The Admin::Report entity: a report with both accounts, the moderators who handled it, and the
// statuses and rules it cites. Statuses deleted since are still shown, so moderators can judge them.
import type { Runtime } from "../runtime.ts";
import type { AdminReportViews } from "../services/moderation/report_views.ts";
import { renderAdminAccount } from "./admin_account.ts";
import { renderRule } from "./instance.ts";
import { reportFields } from "./report.ts";
import { renderStatuses } from "./status.ts";

export function renderAdminReports(rt: Runtime, views: AdminReportViews) {
  const statusById = new Map(renderStatuses(rt, views.statuses).map((s) => [s.id, s]));
  const account = (id: string | null) => {
    const view = id === null ? undefined : views.accounts.get(id);
    return view ? renderAdminAccount(rt, view) : null;
  };
  return views.reports.map((r) => ({
    ...reportFields(r),
    updated_at: (r.updated_at ?? r.created_at).toISOString(),
    account: account(r.account_id),
    target_account: account(r.target_account_id),
    assigned_account: account(r.assigned_account_id),
    action_taken_by_account: account(r.action_taken_by_account_id),
    statuses: r.status_ids.flatMap((s) => statusById.get(s) ?? []),
    rules: r.rule_ids.flatMap((rule) => {
      const found = views.rules.get(rule);
      return found ? [renderRule(found)] : [];
    }),
  }));
}
