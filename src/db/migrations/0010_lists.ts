// Lists of followed accounts. A membership hangs on the follow: unfollowing removes it.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("lists")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("replies_policy", "text", (c) => c.notNull())
    .addColumn("exclusive", "boolean", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("lists_account").on("lists").column("account_id").execute();
  await db.schema
    .createTable("list_accounts")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("list_id", "bigint", (c) => c.notNull().references("lists.id").onDelete("cascade"))
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("follow_id", "bigint", (c) => c.notNull().references("follows.id").onDelete("cascade"))
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addUniqueConstraint("list_accounts_pair", ["list_id", "account_id"])
    .execute();
  await db.schema.createIndex("list_accounts_account").on("list_accounts").column("account_id").execute();
  await db.schema.createIndex("list_accounts_follow").on("list_accounts").column("follow_id").execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("list_accounts").execute();
  await db.schema.dropTable("lists").execute();
}
