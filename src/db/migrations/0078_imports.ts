// Imports of a person's follows, lists, blocks, mutes, domain blocks and bookmarks from the CSV files
// Mastodon exports. The rows are kept so that jobs work through them in chunks, and so that the
// settings page can say which failed and why.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("imports")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("overwrite", "boolean", (c) => c.notNull())
    .addColumn("file_name", "text", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("total_rows", "integer", (c) => c.notNull())
    .addColumn("processed_rows", "integer", (c) => c.notNull())
    .addColumn("failed_rows", "integer", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("finished_at", "timestamptz")
    .execute();
  await db.schema.createIndex("imports_account").on("imports").columns(["account_id", "id"]).execute();
  await db.schema
    .createTable("import_rows")
    .addColumn("import_id", "bigint", (c) => c.notNull().references("imports.id").onDelete("cascade"))
    .addColumn("row_number", "integer", (c) => c.notNull())
    .addColumn("data", "jsonb", (c) => c.notNull())
    .addColumn("done", "boolean", (c) => c.notNull())
    .addColumn("target", "text")
    .addColumn("error", "text")
    .addPrimaryKeyConstraint("import_rows_pkey", ["import_id", "row_number"])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("import_rows").execute();
  await db.schema.dropTable("imports").execute();
}
