// Filters: named groups of keywords and statuses that hide or warn about statuses in some contexts.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("filters")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("context", "jsonb", (c) => c.notNull())
    .addColumn("action", "text", (c) => c.notNull())
    .addColumn("expires_at", "timestamptz")
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("filters_account").on("filters").column("account_id").execute();
  await db.schema
    .createTable("filter_keywords")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("filter_id", "bigint", (c) => c.notNull().references("filters.id").onDelete("cascade"))
    .addColumn("keyword", "text", (c) => c.notNull())
    .addColumn("whole_word", "boolean", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("filter_keywords_filter").on("filter_keywords").column("filter_id").execute();
  await db.schema
    .createTable("filter_statuses")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("filter_id", "bigint", (c) => c.notNull().references("filters.id").onDelete("cascade"))
    .addColumn("status_id", "bigint", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addUniqueConstraint("filter_statuses_pair", ["filter_id", "status_id"])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ["filter_statuses", "filter_keywords", "filters"]) await db.schema.dropTable(t).execute();
}
