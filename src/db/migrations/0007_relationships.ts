// What the relationships area adds to the core tables: featured profiles (endorsements), private
// notes on accounts, and the index that pages through whom an account follows.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("account_pins")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("target_account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addUniqueConstraint("account_pins_pair", ["account_id", "target_account_id"])
    .execute();
  await db.schema.createIndex("account_pins_target").on("account_pins").column("target_account_id").execute();

  await db.schema
    .createTable("account_notes")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("target_account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("comment", "text", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull())
    .addUniqueConstraint("account_notes_pair", ["account_id", "target_account_id"])
    .execute();
  await db.schema.createIndex("account_notes_target").on("account_notes").column("target_account_id").execute();

  await db.schema.createIndex("follows_account").on("follows").columns(["account_id", "id"]).execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("follows_account").execute();
  await db.schema.dropTable("account_notes").execute();
  await db.schema.dropTable("account_pins").execute();
}
