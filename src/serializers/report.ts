// The Report entity, in batches.
import type { Selectable } from "kysely";
import type { ReportsTable } from "../db/schema.ts";
import type { Runtime } from "../runtime.ts";
import { renderAccounts } from "./account.ts";

/** What Report and Admin::Report have in common. */
export function reportFields(r: Selectable<ReportsTable>) {
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

export async function renderReports(rt: Runtime, ids: readonly string[]) {
  if (ids.length === 0) return new Map<string, Record<string, unknown>>();
  const rows = await rt.db.selectFrom("reports").selectAll().where("id", "in", ids).execute();
  const accounts = new Map(
    (await renderAccounts(rt, [...new Set(rows.map((r) => r.target_account_id))])).map((a) => [a.id, a]),
  );
  const out = new Map<string, Record<string, unknown>>();
  for (const r of rows) {
    const target = accounts.get(r.target_account_id);
    if (!target) continue;
    out.set(r.id, {
      ...reportFields(r),
      status_ids: r.status_ids,
      rule_ids: r.rule_ids,
      target_account: target,
    });
  }
  return out;
}
