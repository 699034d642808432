// Hashtags people feature on their profiles (at most 10 each).
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("featured_tags")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    // No foreign key: the tags table comes in a later migration. Tags are never deleted.
    .addColumn("tag_id", "bigint", (c) => c.notNull())
    // The name as the person wrote it ("RookeryDev" for the tag rookerydev).
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addUniqueConstraint("featured_tags_account_tag", ["account_id", "tag_id"])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("featured_tags").execute();
}
