// The relays this server follows (Mastodon's relays table): the relay's inbox, the id of the Follow
// sent to it (which its Accept or Reject names), and where that stands: idle, pending, accepted or
// rejected.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("relays")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("inbox_url", "text", (c) => c.notNull().unique())
    .addColumn("follow_activity_id", "text")
    .addColumn("state", "text", (c) => c.notNull().defaultTo("idle"))
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull())
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("relays").execute();
}
