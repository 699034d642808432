// Staff may disable another server's emoji (Mastodon's CustomEmoji#disabled for remote ones): its
// statuses and profiles then show the shortcode as text. A later Emoji tag naming it keeps it disabled.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("remote_emojis")
    .addColumn("disabled", "boolean", (c) => c.notNull().defaultTo(false))
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("remote_emojis").dropColumn("disabled").execute();
}
