// Custom emojis of other servers, as their Notes and actors name them in `Emoji` tags: one per
// shortcode and server, referenced by the image's remote URL (nothing is copied).
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("remote_emojis")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("domain", "text", (c) => c.notNull())
    .addColumn("shortcode", "text", (c) => c.notNull())
    .addColumn("uri", "text")
    .addColumn("image_url", "text", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("remote_emojis_domain_shortcode")
    .on("remote_emojis")
    .columns(["domain", "shortcode"])
    .unique()
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("remote_emojis").execute();
}
