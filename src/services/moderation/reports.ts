// Reports: a user flags an account, and some of its statuses, for the moderators, who hear of it
// through an `admin.report` notification. Mastodon's ReportService; forwarding to another server
// needs federation, so `forwarded` stays false.

import type { ReportCategory } from "../../db/schema.ts";
import { type FieldError, fieldError, notFound, validationFailed } from "../../domain/errors.ts";
import { isId, newId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import { notifyStaff } from "../notifications/create.ts";
import { loadStatusRows, viewerFor } from "../visibility/load.ts";
import { canSee } from "../visibility/rule.ts";

export const CATEGORIES: readonly ReportCategory[] = ["spam", "legal", "violation", "other"];
const COMMENT_MAX = 1000;

export interface NewReport {
  targetId: string | undefined;
  statusIds: string[];
  ruleIds: string[];
  comment: string;
  category: string | undefined;
}

export async function createReport(rt: Runtime, reporterId: string, input: NewReport): Promise<string> {
  const target = isId(input.targetId)
    ? await rt.db.selectFrom("accounts").select("id").where("id", "=", input.targetId).executeTakeFirst()
    : undefined;
  if (!target) throw notFound();

  const statusIds = await reportedStatuses(rt, reporterId, target.id, input.statusIds);

  const ruleIds = input.ruleIds.filter(isId);
  // Citing rules makes a report about rule violations, whatever category was given.
  const category = ruleIds.length > 0 ? "violation" : (input.category ?? "other");
  const errors: Record<string, FieldError[]> = {};
  if (!CATEGORIES.includes(category as ReportCategory)) errors.category = [fieldError.inclusion];
  if ([...input.comment].length > COMMENT_MAX) errors.comment = [fieldError.tooLong(COMMENT_MAX)];
  const rules = ruleIds.length ? await rt.db.selectFrom("rules").select("id").where("id", "in", ruleIds).execute() : [];
  if (rules.length !== new Set(ruleIds).size || ruleIds.length !== input.ruleIds.length) {
    errors.rule_ids = [fieldError.invalid("contains unknown rules")];
  }
  if (Object.keys(errors).length > 0) throw validationFailed(errors);

  const id = newId();
  const now = new Date();
  await rt.db
    .insertInto("reports")
    .values({
      id,
      account_id: reporterId,
      target_account_id: target.id,
      category: category as ReportCategory,
      comment: input.comment,
      status_ids: JSON.stringify(statusIds),
      rule_ids: JSON.stringify(rules.map((r) => r.id)),
      forwarded: false,
      action_taken_at: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
  await notifyStaff(rt, { fromAccountId: reporterId, type: "admin.report", reportId: id });
  return id;
}

/**
 * The statuses a report cites: each must be the target's own and one the reporter may see, else
 * the report is a 404, as Mastodon finds them (deleted ones included, which it reads `with_discarded`).
 * A report often follows a block, so the reporter's own block hides nothing here; the target's
 * block of the reporter hides everything, as Mastodon's filter of an account's statuses does.
 */
async function reportedStatuses(rt: Runtime, reporterId: string, targetId: string, ids: string[]): Promise<string[]> {
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return [];
  const rows = [...(await loadStatusRows(rt.db, wanted)).values()].filter((r) => r.account_id === targetId);
  const viewer = await viewerFor(rt, reporterId, rows);
  const blockedByTarget = await rt.db
    .selectFrom("blocks")
    .select("id")
    .where("account_id", "=", targetId)
    .where("target_account_id", "=", reporterId)
    .executeTakeFirst();
  const seen = rows.filter(
    (r) => !blockedByTarget && canSee({ ...r, deleted_at: null }, { ...viewer, blocked: new Set() }),
  );
  if (seen.length !== wanted.length) throw notFound();
  return wanted;
}
