// Materialised timelines: the newest entries of every home feed (keyed by the account) and list feed
// (keyed by the list), filled when statuses are posted. Older entries are trimmed; reading past a
// feed's horizon falls back to a query.
import type { Kysely } from "kysely";
import { sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("feed_entries")
    .addColumn("feed_id", "bigint", (c) => c.notNull())
    .addColumn("status_id", "bigint", (c) => c.notNull())
    // Who posted the entry (the booster, for a boost), and for a boost what and whose it boosts.
    .addColumn("account_id", "bigint", (c) => c.notNull())
    .addColumn("reblog_of_id", "bigint")
    .addColumn("reblog_author_id", "bigint")
    .addPrimaryKeyConstraint("feed_entries_pk", ["feed_id", "status_id"])
    .execute();
  await db.schema.createIndex("feed_entries_status").on("feed_entries").column("status_id").execute();
  await db.schema.createIndex("feed_entries_author").on("feed_entries").columns(["feed_id", "account_id"]).execute();
  await db.schema
    .createIndex("feed_entries_reblog")
    .on("feed_entries")
    .columns(["reblog_of_id", "feed_id"])
    .where(sql.ref("reblog_of_id"), "is not", null)
    .execute();
  // A feed trimmed to its newest entries is complete only above its horizon.
  await db.schema
    .createTable("feed_horizons")
    .addColumn("feed_id", "bigint", (c) => c.primaryKey())
    .addColumn("horizon_id", "bigint", (c) => c.notNull())
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("feed_horizons").execute();
  await db.schema.dropTable("feed_entries").execute();
}
