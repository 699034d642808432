// Link preview cards: one card per URL (Mastodon's PreviewCard), shared by every status that links
// it; the status's link to its card (one each, as on Mastodon); and the sites cards come from
// (Mastodon's PreviewCardProvider), which moderators let trend or not.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("preview_cards")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("url", "text", (c) => c.notNull().unique())
    .addColumn("type", "text", (c) => c.notNull().defaultTo("link"))
    .addColumn("title", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("author_name", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("author_url", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("author_account_id", "bigint")
    .addColumn("provider_name", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("provider_url", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("html", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("width", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("height", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("embed_url", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("image_key", "text")
    .addColumn("image_description", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("blurhash", "text")
    .addColumn("language", "text")
    .addColumn("published_at", "timestamptz")
    .addColumn("trendable", "boolean")
    .addColumn("reviewed_at", "timestamptz")
    // When it was last fetched (null: never yet), when it should be again, and until when a job
    // fetching it holds it: the lease keeps concurrent jobs for one URL from fetching it twice.
    .addColumn("fetched_at", "timestamptz")
    .addColumn("stale_at", "timestamptz", (c) => c.notNull())
    .addColumn("fetching_until", "timestamptz")
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("preview_cards_statuses")
    .addColumn("status_id", "bigint", (c) => c.primaryKey().references("statuses.id").onDelete("cascade"))
    .addColumn("preview_card_id", "bigint", (c) => c.notNull().references("preview_cards.id").onDelete("cascade"))
    // The link as the status wrote it (the card answers with it, as Mastodon's does).
    .addColumn("url", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("preview_cards_statuses_card")
    .on("preview_cards_statuses")
    .columns(["preview_card_id", "status_id"])
    .execute();
  await db.schema
    .createTable("preview_card_providers")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("domain", "text", (c) => c.notNull().unique())
    .addColumn("trendable", "boolean")
    .addColumn("reviewed_at", "timestamptz")
    .addColumn("requested_review_at", "timestamptz")
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull())
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("preview_card_providers").execute();
  await db.schema.dropTable("preview_cards_statuses").execute();
  await db.schema.dropTable("preview_cards").execute();
}
