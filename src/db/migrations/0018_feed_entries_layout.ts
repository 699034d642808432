// A post by an account with many followers adds one entry to each of their feeds, and every index
// on feed_entries that is ordered by feed takes a write in a different place for each of them.
// Two such indexes were one too many:
// - (feed_id, account_id) goes: taking an author's entries out of a feed scans the feed, which
//   trimming keeps to about FEED_SIZE entries.
// - On SQLite, the table is stored in its primary key's order (WITHOUT ROWID) instead of in a row
//   table beside an index holding the same five numbers: one B-tree where there were two.
import { type Kysely, SqliteAdapter, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("feed_entries_author").execute();
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  await sql`
    create table feed_entries_clustered (
      feed_id bigint not null,
      status_id bigint not null,
      account_id bigint not null,
      reblog_of_id bigint,
      reblog_author_id bigint,
      constraint feed_entries_pk primary key (feed_id, status_id)
    ) without rowid`.execute(db);
  await sql`insert into feed_entries_clustered select feed_id, status_id, account_id, reblog_of_id, reblog_author_id from feed_entries`.execute(
    db,
  );
  await db.schema.dropTable("feed_entries").execute();
  await sql`alter table feed_entries_clustered rename to feed_entries`.execute(db);
  await createSecondaryIndexes(db);
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    await sql`create table feed_entries_rows as select * from feed_entries`.execute(db);
    await db.schema.dropTable("feed_entries").execute();
    await db.schema
      .createTable("feed_entries")
      .addColumn("feed_id", "bigint", (c) => c.notNull())
      .addColumn("status_id", "bigint", (c) => c.notNull())
      .addColumn("account_id", "bigint", (c) => c.notNull())
      .addColumn("reblog_of_id", "bigint")
      .addColumn("reblog_author_id", "bigint")
      .addPrimaryKeyConstraint("feed_entries_pk", ["feed_id", "status_id"])
      .execute();
    await sql`insert into feed_entries select * from feed_entries_rows`.execute(db);
    await db.schema.dropTable("feed_entries_rows").execute();
    await createSecondaryIndexes(db);
  }
  await db.schema.createIndex("feed_entries_author").on("feed_entries").columns(["feed_id", "account_id"]).execute();
}

/** The indexes of 0012_feeds that stay: by status (deletions) and by boosted status (collapsing). */
// biome-ignore lint/suspicious/noExplicitAny: see up()
async function createSecondaryIndexes(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex("feed_entries_status").on("feed_entries").column("status_id").execute();
  await db.schema
    .createIndex("feed_entries_reblog")
    .on("feed_entries")
    .columns(["reblog_of_id", "feed_id"])
    .where(sql.ref("reblog_of_id"), "is not", null)
    .execute();
}
