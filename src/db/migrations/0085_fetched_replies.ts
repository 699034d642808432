// When this server last walked a remote status's replies collection (Mastodon's
// statuses.fetched_replies_at): a thread opened again within the cool-down is not fetched again.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("statuses").addColumn("fetched_replies_at", "timestamptz").execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("statuses").dropColumn("fetched_replies_at").execute();
}
