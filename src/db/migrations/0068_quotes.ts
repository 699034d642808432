// Quote posts (Mastodon 4.5, FEP-044f): a quote row per quoting status, in the state of its
// authorization, and who may quote a status as Mastodon stores it (automatic approvals in the high
// 16 bits, manual ones in the low 16). Existing statuses keep 0: only their authors may quote them.
import type { Kysely } from "kysely";
import { sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("statuses")
    .addColumn("quote_approval_policy", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable("quotes")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("status_id", "bigint", (c) => c.notNull().unique())
    .addColumn("account_id", "bigint", (c) => c.notNull())
    .addColumn("quoted_status_id", "bigint")
    .addColumn("quoted_account_id", "bigint")
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("legacy", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("activity_uri", "text")
    .addColumn("approval_uri", "text")
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("quotes_quoted_status")
    .on("quotes")
    .columns(["quoted_status_id", "id"])
    .where(sql.ref("quoted_status_id"), "is not", null)
    .execute();
  await db.schema
    .createIndex("quotes_activity_uri")
    .on("quotes")
    .column("activity_uri")
    .where(sql.ref("activity_uri"), "is not", null)
    .execute();
  await db.schema
    .createIndex("quotes_approval_uri")
    .on("quotes")
    .column("approval_uri")
    .where(sql.ref("approval_uri"), "is not", null)
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("quotes").execute();
  await db.schema.alterTable("statuses").dropColumn("quote_approval_policy").execute();
}
