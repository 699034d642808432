// Custom emojis: an image (PNG, GIF or WebP, as uploaded) and a static PNG of it, named by a
// shortcode. `domain` is null for this server's own; other servers' will come with federation.
import { type Kysely, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("custom_emojis")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("shortcode", "text", (c) => c.notNull())
    .addColumn("domain", "text")
    .addColumn("image_file", "text", (c) => c.notNull())
    .addColumn("static_file", "text", (c) => c.notNull())
    .addColumn("category", "text")
    .addColumn("visible_in_picker", "boolean", (c) => c.notNull())
    .addColumn("disabled", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("custom_emojis_local_shortcode")
    .on("custom_emojis")
    .column("shortcode")
    .unique()
    .where(sql.ref("domain"), "is", null)
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("custom_emojis").execute();
}
