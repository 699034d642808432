// The Admin::Report entity: a report with both accounts, the moderators who handled it, and the
// statuses and rules it cites. Statuses deleted since are still shown, so moderators can judge them.
import type { Runtime } from "../runtime.ts";
import { renderAdminAccounts } from "./admin_account.ts";
import { renderRule } from "./instance.ts";
import { reportFields } from "./report.ts";
import { renderStatuses } from "./status.ts";

export async function renderAdminReports(rt: Runtime, ids: readonly string[], viewerId: string) {
  if (ids.length === 0) return [];
  const rows = await rt.db.selectFrom("reports").selectAll().where("id", "in", ids).execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  const accountIds = rows.flatMap((r) =>
    [r.account_id, r.target_account_id, r.assigned_account_id, r.action_taken_by_account_id].filter(
      (id): id is string => id !== null,
    ),
  );
  const statusIds = [...new Set(rows.flatMap((r) => r.status_ids))];
  const ruleIds = [...new Set(rows.flatMap((r) => r.rule_ids))];
  const [accounts, statuses, rules] = await Promise.all([
    renderAdminAccounts(rt, accountIds),
    renderStatuses(rt, statusIds, { viewerId, includeDeleted: true }),
    ruleIds.length > 0 ? rt.db.selectFrom("rules").selectAll().where("id", "in", ruleIds).execute() : [],
  ]);
  const statusById = new Map(statuses.map((s) => [s.id, s]));
  const ruleById = new Map(rules.map((r) => [r.id, renderRule(r)]));
  const account = (id: string | null) => (id === null ? null : (accounts.get(id) ?? null));
  return ids.flatMap((id) => {
    const r = byId.get(id);
    if (!r) return [];
    return [
      {
        ...reportFields(r),
        updated_at: (r.updated_at ?? r.created_at).toISOString(),
        account: account(r.account_id),
        target_account: account(r.target_account_id),
        assigned_account: account(r.assigned_account_id),
        action_taken_by_account: account(r.action_taken_by_account_id),
        statuses: r.status_ids.flatMap((s) => statusById.get(s) ?? []),
        rules: r.rule_ids.flatMap((rule) => ruleById.get(rule) ?? []),
      },
    ];
  });
}
