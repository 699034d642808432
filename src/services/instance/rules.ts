// The server's rules, shown on sign-up, in reports and in the Instance entity.
import type { Selectable } from "kysely";
import type { RulesTable } from "../../db/schema.ts";
import { notFound, unprocessable } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import { instanceChanged } from "./cached.ts";

export type Rule = Selectable<RulesTable>;

export async function rules(rt: Runtime): Promise<Rule[]> {
  return rt.db.selectFrom("rules").selectAll().orderBy("priority").orderBy("id").execute();
}

export async function addRule(rt: Runtime, text: string, hint = ""): Promise<Rule> {
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
  await rt.db.insertInto("rules").values(rule).execute();
  await instanceChanged(rt);
  return rule;
}

export async function removeRule(rt: Runtime, id: string): Promise<void> {
  const result = await rt.db.deleteFrom("rules").where("id", "=", id).executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) throw notFound();
  await instanceChanged(rt);
}
