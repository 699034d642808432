// On PostgreSQL, the feeds go without the write-ahead log. A post adds an entry to the feed of every
// follower, each in a different page of the feed index: with 10,000 followers, about 2 MB of log a
// post, and 30 MB or more right after a checkpoint (a full image of every page it is first to touch).
// That volume brought on checkpoints every minute or so under steady posting, and the commits of
// everyone else waited behind it (posts took up to 150 ms). Feeds hold nothing that the statuses
// and follows don't (like Mastodon's feeds in Redis), so they may be lost: PostgreSQL empties
// unlogged tables after a crash (not after a clean shutdown).
// `feeds_intact` is emptied along with them; a worker that finds it empty restores the feeds
// (restoreFeeds in services/feeds/maintenance.ts). SQLite keeps its feeds in the log as before.
import { type Kysely, SqliteAdapter, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = !(db.getExecutor().adapter instanceof SqliteAdapter);
  if (postgres) {
    await sql`alter table feed_entries set unlogged`.execute(db);
    await sql`alter table feed_horizons set unlogged`.execute(db);
  }
  let marker = db.schema.createTable("feeds_intact");
  if (postgres) marker = marker.modifyFront(sql`unlogged`);
  await marker.addColumn("intact", "boolean", (c) => c.primaryKey()).execute();
  await db.insertInto("feeds_intact").values({ intact: true }).execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("feeds_intact").execute();
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`alter table feed_horizons set logged`.execute(db);
  await sql`alter table feed_entries set logged`.execute(db);
}
