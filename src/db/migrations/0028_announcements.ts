// Announcements from the operators: text (rendered once, with the accounts it mentions and the
// statuses it links), shown from `published_at` until `ends_at`; who dismissed each, and the emoji
// reactions people gave them.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("announcements")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("text", "text", (c) => c.notNull())
    .addColumn("content", "text", (c) => c.notNull())
    .addColumn("mentions", "jsonb", (c) => c.notNull())
    .addColumn("statuses", "jsonb", (c) => c.notNull())
    .addColumn("starts_at", "timestamptz")
    .addColumn("ends_at", "timestamptz")
    .addColumn("all_day", "boolean", (c) => c.notNull())
    .addColumn("published_at", "timestamptz", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("announcement_dismissals")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("announcement_id", "bigint", (c) => c.notNull().references("announcements.id").onDelete("cascade"))
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addUniqueConstraint("announcement_dismissals_pair", ["account_id", "announcement_id"])
    .execute();
  await db.schema
    .createTable("announcement_reactions")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("announcement_id", "bigint", (c) => c.notNull().references("announcements.id").onDelete("cascade"))
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addUniqueConstraint("announcement_reactions_once", ["announcement_id", "account_id", "name"])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("announcement_reactions").execute();
  await db.schema.dropTable("announcement_dismissals").execute();
  await db.schema.dropTable("announcements").execute();
}
