// The Report entity.
import type { Runtime } from "../runtime.ts";
import type { ReportRow, ReportView } from "../services/moderation/report_views.ts";
import { renderAccountView } from "./account.ts";

/** What Report and Admin::Report have in common. */
export function reportFields(r: ReportRow) {
  return {
    id: r.id,
    action_taken: r.action_taken_at !== null,
    action_taken_at: r.action_taken_at?.toISOString() ?? null,
    category: r.category,
    comment: r.comment,
    forwarded: r.forwarded,
    created_at: r.created_at.toISOString(),
  };
}

export function renderReport(rt: Runtime, { row, target }: ReportView) {
  return {
    ...reportFields(row),
    status_ids: row.status_ids,
    rule_ids: row.rule_ids,
    target_account: renderAccountView(rt, target),
  };
}
