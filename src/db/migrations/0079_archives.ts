// The archives a person asks for of their account (Mastodon's "Request your archive"): made by a job,
// kept in media storage, downloaded by their owner only.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("archives")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("statuses_total", "integer", (c) => c.notNull())
    .addColumn("statuses_done", "integer", (c) => c.notNull())
    .addColumn("file_key", "text")
    .addColumn("file_size", "bigint")
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("finished_at", "timestamptz")
    .execute();
  await db.schema.createIndex("archives_account").on("archives").columns(["account_id", "id"]).execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("archives").execute();
}
