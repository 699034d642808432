// Account warnings (Mastodon's strikes): what a moderator did to an account and told it why. The
// account reads them through its `moderation_warning` notifications.
import type { Selectable } from "kysely";
import type { AccountWarningsTable } from "../../db/schema.ts";
import type { Runtime } from "../../runtime.ts";
import { type AccountView, loadAccountViews } from "../accounts/views.ts";

export interface WarningView {
  row: Selectable<AccountWarningsTable>;
  target: AccountView;
}

export async function loadWarnings(rt: Runtime, ids: readonly string[]): Promise<Map<string, WarningView>> {
  if (ids.length === 0) return new Map();
  const rows = await rt.db.selectFrom("account_warnings").selectAll().where("id", "in", ids).execute();
  const targets = await loadAccountViews(rt, [...new Set(rows.map((r) => r.target_account_id))]);
  return new Map(
    rows.flatMap((row) => {
      const target = targets.get(row.target_account_id);
      return target ? [[row.id, { row, target }] as const] : [];
    }),
  );
}
