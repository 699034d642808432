// Indexes for the search operators that can narrow a search more than its words do (SQLite lists
// the few statuses they allow and checks each against the full-text index, instead of walking every
// status that has a common word): `language:`, newest first, `has:poll` and `is:sensitive`.
import { type Kysely, SqliteAdapter, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  const yes = db.getExecutor().adapter instanceof SqliteAdapter ? sql`1` : sql`true`;
  await db.schema.createIndex("statuses_language").on("statuses").columns(["language", "id"]).execute();
  await db.schema
    .createIndex("statuses_poll")
    .on("statuses")
    .column("id")
    .where(sql<boolean>`poll_id is not null`)
    .execute();
  await db.schema
    .createIndex("statuses_sensitive")
    .on("statuses")
    .column("id")
    .where(sql<boolean>`sensitive = ${yes}`)
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  for (const name of ["statuses_language", "statuses_poll", "statuses_sensitive"])
    await db.schema.dropIndex(name).execute();
}
