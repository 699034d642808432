// What moderators do with reports: who took one on, who resolved it, and when it last changed.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("reports")
    .addColumn("assigned_account_id", "bigint", (c) => c.references("accounts.id").onDelete("set null"))
    .execute();
  await db.schema
    .alterTable("reports")
    .addColumn("action_taken_by_account_id", "bigint", (c) => c.references("accounts.id").onDelete("set null"))
    .execute();
  await db.schema.alterTable("reports").addColumn("updated_at", "timestamptz").execute();
  await db
    .updateTable("reports")
    .set((eb) => ({ updated_at: eb.ref("created_at") }))
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ["updated_at", "action_taken_by_account_id", "assigned_account_id"]) {
    await db.schema.alterTable("reports").dropColumn(column).execute();
  }
}
