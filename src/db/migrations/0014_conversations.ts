// Direct conversations as each participant sees them: the statuses of one thread among one set of
// participants, the latest of them, and whether the person has read it (Mastodon's
// account_conversations).
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("account_conversations")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("conversation_id", "bigint", (c) => c.notNull())
    // The other participants' ids, sorted and joined by spaces: one row per set of participants.
    .addColumn("participants", "text", (c) => c.notNull())
    .addColumn("status_ids", "jsonb", (c) => c.notNull())
    .addColumn("last_status_id", "bigint", (c) => c.notNull())
    .addColumn("unread", "boolean", (c) => c.notNull())
    .addUniqueConstraint("account_conversations_key", ["account_id", "conversation_id", "participants"])
    .execute();
  await db.schema
    .createIndex("account_conversations_latest")
    .on("account_conversations")
    .columns(["account_id", "last_status_id"])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("account_conversations").execute();
}
