// Notification records, written by every area through services/notifications.ts. Read state is not
// kept here: it comes from the notifications marker.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("notifications")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("from_account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("status_id", "bigint", (c) => c.references("statuses.id").onDelete("cascade"))
    .addColumn("report_id", "bigint")
    // Mastodon's grouping key: `favourite-<status>-<hour>`, `follow-<hour>`, or `ungrouped-<id>`.
    .addColumn("group_key", "text", (c) => c.notNull())
    .addColumn("filtered", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("notifications_account").on("notifications").columns(["account_id", "id"]).execute();
  await db.schema
    .createIndex("notifications_group")
    .on("notifications")
    .columns(["account_id", "group_key", "id"])
    .execute();
  // Serves the cascade when a sender goes, and removing the notification of an undone follow.
  await db.schema
    .createIndex("notifications_sender")
    .on("notifications")
    .columns(["from_account_id", "account_id"])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("notifications").execute();
}
