// Follow suggestions: the accounts staff feature (Mastodon's bootstrap_timeline_accounts, managed
// with `rookery suggestions feature`), and the suggestions a person removed, which stay removed.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("featured_accounts")
    .addColumn("account_id", "bigint", (c) => c.primaryKey().references("accounts.id").onDelete("cascade"))
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("suggestion_dismissals")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("target_account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addUniqueConstraint("suggestion_dismissals_pair", ["account_id", "target_account_id"])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("suggestion_dismissals").execute();
  await db.schema.dropTable("featured_accounts").execute();
}
