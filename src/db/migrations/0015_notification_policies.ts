// Notification policies (what to do with notifications from strangers), the requests that collect
// filtered notifications per sender, and the senders a person accepted from a request.
import { type Kysely, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("notification_policies")
    .addColumn("account_id", "bigint", (c) => c.primaryKey().references("accounts.id").onDelete("cascade"))
    .addColumn("for_not_following", "text", (c) => c.notNull())
    .addColumn("for_not_followers", "text", (c) => c.notNull())
    .addColumn("for_new_accounts", "text", (c) => c.notNull())
    .addColumn("for_private_mentions", "text", (c) => c.notNull())
    .addColumn("for_limited_accounts", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("notification_requests")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("from_account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("last_status_id", "bigint", (c) => c.references("statuses.id").onDelete("set null"))
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull())
    .addUniqueConstraint("notification_requests_pair", ["account_id", "from_account_id"])
    .execute();
  await db.schema
    .createTable("notification_permissions")
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("from_account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addPrimaryKeyConstraint("notification_permissions_pk", ["account_id", "from_account_id"])
    .execute();
  // Filtered notifications are read per sender (a request's count, accepting, dismissing).
  await db.schema
    .createIndex("notifications_filtered")
    .on("notifications")
    .columns(["account_id", "from_account_id"])
    .where(sql.ref("filtered"), "=", true)
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("notifications_filtered").execute();
  for (const table of ["notification_permissions", "notification_requests", "notification_policies"]) {
    await db.schema.dropTable(table).execute();
  }
}
