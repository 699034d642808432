// Full-text search over statuses: an FTS5 table on SQLite and a tsvector with a GIN index on
// PostgreSQL, keyed by the status id. The same service writes both (services/search/status_index.ts)
// with words it has already normalized, so each database only splits at spaces and compares.
// Tags gain an operator's review (trends and `exclude_unreviewed`): null until reviewed.
import { type Kysely, SqliteAdapter, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    await sql`create virtual table status_search using fts5(document, tokenize = 'unicode61')`.execute(db);
  } else {
    await sql`create table status_search (status_id bigint primary key, document tsvector not null)`.execute(db);
    await sql`create index status_search_document on status_search using gin (document)`.execute(db);
  }
  await db.schema.alterTable("tags").addColumn("trendable", "boolean").execute();
  await db.schema.alterTable("tags").addColumn("reviewed_at", "timestamptz").execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("tags").dropColumn("reviewed_at").execute();
  await db.schema.alterTable("tags").dropColumn("trendable").execute();
  await db.schema.dropTable("status_search").execute();
}
