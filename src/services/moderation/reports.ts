// Reports: a user flags an account, and some of its statuses, for the moderators, who hear of it
// through an `admin.report` notification. Mastodon's ReportService; forwarding to another server
// needs federation, so `forwarded` stays false.

import type { ReportCategory } from "../../db/schema.ts";
import { type FieldError, fieldError, notFound, validationFailed } from "../../domain/errors.ts";
import { isId, newId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import { notifyStaff } from "../notifications/create.ts";

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

  // Only the target's own statuses can be attached; others are left out.
  const wanted = input.statusIds.filter(isId);
  const statuses = wanted.length
    ? await rt.db
        .selectFrom("statuses")
        .select("id")
        .where("id", "in", wanted)
        .where("account_id", "=", target.id)
        .execute()
    : [];

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
      status_ids: JSON.stringify(statuses.map((s) => s.id)),
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
