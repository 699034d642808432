// What registration and profiles add to the core tables: the app a user signed up through (only
// that app may resend the confirmation mail, and the mail can lead back into it), and the
// websites allowed to credit an account as author (`attribution_domains`).
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("users")
    .addColumn("created_by_application_id", "bigint", (c) => c.references("oauth_applications.id").onDelete("set null"))
    .execute();
  await db.schema
    .alterTable("accounts")
    .addColumn("attribution_domains", "jsonb", (c) => c.notNull().defaultTo("[]"))
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("accounts").dropColumn("attribution_domains").execute();
  await db.schema.alterTable("users").dropColumn("created_by_application_id").execute();
}
