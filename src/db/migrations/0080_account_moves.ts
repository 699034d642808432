// Moving accounts, as Mastodon does: the other accounts a person says are also theirs (an alias
// lets one of them move here), every account's `alsoKnownAs` (a local one's from its aliases, a
// remote one's as its actor says), and the moves a local account made (one per 30 days).
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("accounts")
    .addColumn("also_known_as", "jsonb", (c) => c.notNull().defaultTo("[]"))
    .execute();
  await db.schema
    .createTable("account_aliases")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("acct", "text", (c) => c.notNull())
    .addColumn("uri", "text", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addUniqueConstraint("account_aliases_account_uri", ["account_id", "uri"])
    .execute();
  await db.schema
    .createTable("account_migrations")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("acct", "text", (c) => c.notNull())
    .addColumn("target_account_id", "bigint", (c) => c.references("accounts.id").onDelete("set null"))
    .addColumn("followers_count", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("account_migrations_account_created")
    .on("account_migrations")
    .columns(["account_id", "created_at"])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("account_migrations").execute();
  await db.schema.dropTable("account_aliases").execute();
  await db.schema.alterTable("accounts").dropColumn("also_known_as").execute();
}
