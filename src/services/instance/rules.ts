// The server's rules, shown on sign-up, in reports and in the Instance entity.
import type { Selectable } from "kysely";
import type { RulesTable } from "../../db/schema.ts";
import { notFound, unprocessable } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import { logAction } from "../moderation/audit_log.ts";
import { requirePermission, type Staff } from "../moderation/staff.ts";
import { instanceChanged } from "./cached.ts";

export type Rule = Selectable<RulesTable>;

export async function rules(rt: Runtime): Promise<Rule[]> {
  return rt.db.selectFrom("rules").selectAll().orderBy("priority").orderBy("id").execute();
}

/** Adds a rule; `actor` is the member of staff adding it (the web admin), whom the audit log names. */
export async function addRule(rt: Runtime, text: string, hint = "", actor?: Staff): Promise<Rule> {
  if (actor) requirePermission(actor, "manageRules");
  if (!text.trim()) throw unprocessable("Validation failed: Text can't be blank");
  const now = new Date();
  const rule: Rule = {
    id: newId(),
    text: text.trim(),
    hint: hint.trim(),
    priority: 0,
    created_at: now,
    updated_at: now,
  };
  await rt.db.transaction().execute(async (trx) => {
    await trx.insertInto("rules").values(rule).execute();
    if (actor)
      await logAction(trx, actor, { action: "create", targetType: "Rule", targetId: rule.id, identifier: rule.text });
  });
  await instanceChanged(rt);
  return rule;
}

export async function removeRule(rt: Runtime, id: string, actor?: Staff): Promise<void> {
  if (actor) requirePermission(actor, "manageRules");
  await rt.db.transaction().execute(async (trx) => {
    const removed = await trx.deleteFrom("rules").where("id", "=", id).returning("text").executeTakeFirst();
    if (!removed) throw notFound();
    if (actor)
      await logAction(trx, actor, { action: "destroy", targetType: "Rule", targetId: id, identifier: removed.text });
  });
  await instanceChanged(rt);
}
