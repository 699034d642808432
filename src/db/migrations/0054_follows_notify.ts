// The followers who asked to hear of every post of an account, found without walking all of its
// followers: posting looks for them in its transaction, and enqueues nothing when there are none.
import { type Kysely, SqliteAdapter, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  const yes = db.getExecutor().adapter instanceof SqliteAdapter ? sql`1` : sql`true`;
  await db.schema
    .createIndex("follows_notify")
    .on("follows")
    .column("target_account_id")
    .where(sql<boolean>`notify = ${yes}`)
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("follows_notify").execute();
}
