// Moderating reports (Mastodon's Admin::Reports API): staff who may manage reports list them, read
// one with everything it cites (deleted statuses included), change its category or rules, take it
// on, and resolve or reopen it.
import { type Page, type PageResult, paginate } from "../../db/paginate.ts";
import type { ReportCategory, Role } from "../../db/schema.ts";
import { ApiError, fieldError, notFound, validationFailed } from "../../domain/errors.ts";
import { isId } from "../../domain/ids.ts";
import { can } from "../../domain/roles.ts";
import type { Runtime } from "../../runtime.ts";
import { CATEGORIES } from "./reports.ts";

/** Mastodon's answer to staff without the permission, and to everyone else. */
export function requireReportManager(role: Role): void {
  if (!can(role, "manageReports")) throw new ApiError(403, "This action is not allowed");
}

export interface ReportQuery {
  resolved: boolean;
  accountId?: string;
  targetAccountId?: string;
}

/** Unresolved reports by default, resolved ones on request; newest first. */
export async function listReports(rt: Runtime, q: ReportQuery, page: Page): Promise<PageResult<string>> {
  let query = rt.db
    .selectFrom("reports")
    .select("id")
    .where("action_taken_at", q.resolved ? "is not" : "is", null);
  if (q.accountId) query = query.where("account_id", "=", isId(q.accountId) ? q.accountId : "0");
  if (q.targetAccountId)
    query = query.where("target_account_id", "=", isId(q.targetAccountId) ? q.targetAccountId : "0");
  const result = await paginate(query, "id", page);
  return { ...result, items: result.items.map((r) => r.id) };
}

export async function requireReport(rt: Runtime, id: string): Promise<string> {
  const row = isId(id) ? await rt.db.selectFrom("reports").select("id").where("id", "=", id).executeTakeFirst() : null;
  if (!row) throw notFound();
  return row.id;
}

type Change =
  | { assigned_account_id: string | null }
  | { action_taken_at: Date | null; action_taken_by_account_id: string | null }
  | { category?: ReportCategory; rule_ids?: string };

/** Changes a report; a report that does not exist is a 404. */
async function change(rt: Runtime, id: string, values: Change): Promise<string> {
  if (!isId(id)) throw notFound();
  const result = await rt.db
    .updateTable("reports")
    .set({ ...values, updated_at: new Date() })
    .where("id", "=", id)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) throw notFound();
  return id;
}

export const assignReport = (rt: Runtime, id: string, moderatorId: string | null) =>
  change(rt, id, { assigned_account_id: moderatorId });

export const resolveReport = (rt: Runtime, id: string, moderatorId: string) =>
  change(rt, id, { action_taken_at: new Date(), action_taken_by_account_id: moderatorId });

export const reopenReport = (rt: Runtime, id: string) =>
  change(rt, id, { action_taken_at: null, action_taken_by_account_id: null });

/** A new category and/or cited rules; citing rules makes it a report about rule violations. */
export async function updateReport(
  rt: Runtime,
  id: string,
  input: { category?: string; ruleIds?: string[] },
): Promise<string> {
  await requireReport(rt, id);
  const values: { category?: ReportCategory; rule_ids?: string } = {};
  if (input.category !== undefined) {
    if (!CATEGORIES.includes(input.category as ReportCategory)) {
      throw validationFailed({ category: [fieldError.inclusion] });
    }
    values.category = input.category as ReportCategory;
  }
  if (input.ruleIds !== undefined) {
    const wanted = [...new Set(input.ruleIds)];
    const known = wanted.every(isId)
      ? await rt.db
          .selectFrom("rules")
          .select("id")
          .where("id", "in", wanted.length ? wanted : ["0"])
          .execute()
      : [];
    if (known.length !== wanted.length)
      throw validationFailed({ rule_ids: [fieldError.invalid("contains unknown rules")] });
    values.rule_ids = JSON.stringify(wanted);
    if (wanted.length > 0) values.category = "violation";
  }
  return change(rt, id, values);
}
