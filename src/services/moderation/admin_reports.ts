// Moderating reports (Mastodon's Admin::Reports API): staff who may manage reports list them, read
// one with everything it cites (deleted statuses included), change its category or rules, take it
// on, and resolve or reopen it. Every change is in the audit log.
import type { Db } from "../../db/index.ts";
import { type Page, type PageResult, paginate } from "../../db/paginate.ts";
import type { ReportCategory } from "../../db/schema.ts";
import { fieldError, notFound, validationFailed } from "../../domain/errors.ts";
import { isId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import { logAction } from "./audit_log.ts";
import { CATEGORIES } from "./reports.ts";
import { requirePermission, type Staff } from "./staff.ts";

export interface ReportQuery {
  resolved: boolean;
  accountId?: string;
  targetAccountId?: string;
}

/** Unresolved reports by default, resolved ones on request; newest first. */
export async function listReports(rt: Runtime, actor: Staff, q: ReportQuery, page: Page): Promise<PageResult<string>> {
  requirePermission(actor, "manageReports");
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

export async function requireReport(rt: Runtime, actor: Staff, id: string): Promise<string> {
  requirePermission(actor, "manageReports");
  const row = isId(id) ? await rt.db.selectFrom("reports").select("id").where("id", "=", id).executeTakeFirst() : null;
  if (!row) throw notFound();
  return row.id;
}

type Change =
  | { assigned_account_id: string | null }
  | { action_taken_at: Date | null; action_taken_by_account_id: string | null }
  | { category?: ReportCategory; rule_ids?: string };

/** Changes a report and logs `action`; a report that does not exist is a 404. */
async function change(rt: Runtime, actor: Staff, id: string, action: string, values: Change): Promise<string> {
  requirePermission(actor, "manageReports");
  if (!isId(id)) throw notFound();
  await rt.db.transaction().execute(async (trx) => {
    const result = await trx
      .updateTable("reports")
      .set({ ...values, updated_at: new Date() })
      .where("id", "=", id)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) throw notFound();
    await logAction(trx, actor, { action, targetType: "Report", targetId: id, identifier: `#${id}` });
  });
  return id;
}

/** Takes the report on (`toSelf`) or gives it up. */
export const assignReport = (rt: Runtime, actor: Staff, id: string, toSelf: boolean) =>
  change(rt, actor, id, toSelf ? "assigned_to_self" : "unassigned", {
    assigned_account_id: toSelf ? actor.accountId : null,
  });

export const resolveReport = (rt: Runtime, actor: Staff, id: string) =>
  change(rt, actor, id, "resolve", { action_taken_at: new Date(), action_taken_by_account_id: actor.accountId });

export const reopenReport = (rt: Runtime, actor: Staff, id: string) =>
  change(rt, actor, id, "reopen", { action_taken_at: null, action_taken_by_account_id: null });

/** Resolves a report inside an account action's transaction (Mastodon resolves the report acted on). */
export async function resolveWithin(db: Db, actor: Staff, id: string): Promise<void> {
  await db
    .updateTable("reports")
    .set({ action_taken_at: new Date(), action_taken_by_account_id: actor.accountId, updated_at: new Date() })
    .where("id", "=", id)
    .execute();
  await logAction(db, actor, { action: "resolve", targetType: "Report", targetId: id, identifier: `#${id}` });
}

/** A new category and/or cited rules; citing rules makes it a report about rule violations. */
export async function updateReport(
  rt: Runtime,
  actor: Staff,
  id: string,
  input: { category?: string; ruleIds?: string[] },
): Promise<string> {
  await requireReport(rt, actor, id);
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
  return change(rt, actor, id, "update", values);
}
