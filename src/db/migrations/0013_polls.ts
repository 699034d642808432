// Polls attached to statuses, their votes, and statuses scheduled for later.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("polls")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("status_id", "bigint", (c) => c.notNull().references("statuses.id").onDelete("cascade"))
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("options", "jsonb", (c) => c.notNull())
    // Votes per option, kept in step with poll_votes in the voting transaction.
    .addColumn("tallies", "jsonb", (c) => c.notNull())
    .addColumn("votes_count", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("voters_count", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("multiple", "boolean", (c) => c.notNull())
    .addColumn("hide_totals", "boolean", (c) => c.notNull())
    .addColumn("expires_at", "timestamptz", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("polls_status").on("polls").column("status_id").execute();
  await db.schema
    .createTable("poll_votes")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("poll_id", "bigint", (c) => c.notNull().references("polls.id").onDelete("cascade"))
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("choice", "integer", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addUniqueConstraint("poll_votes_choice", ["poll_id", "account_id", "choice"])
    .execute();
  await db.schema.alterTable("statuses").addColumn("poll_id", "bigint").execute();

  await db.schema
    .createTable("scheduled_statuses")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("scheduled_at", "timestamptz", (c) => c.notNull())
    .addColumn("params", "jsonb", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("scheduled_statuses_account")
    .on("scheduled_statuses")
    .columns(["account_id", "scheduled_at"])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("scheduled_statuses").execute();
  await db.schema.alterTable("statuses").dropColumn("poll_id").execute();
  await db.schema.dropTable("poll_votes").execute();
  await db.schema.dropTable("polls").execute();
}
