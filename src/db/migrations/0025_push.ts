// Web Push: one subscription per access token (a token's new subscription replaces its old one),
// gone with the token; and the notifications already pushed to a subscription, so that a delivery
// job that runs again after its push went out does not push it twice.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("push_subscriptions")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("access_token_id", "bigint", (c) =>
      c.notNull().unique().references("oauth_access_tokens.id").onDelete("cascade"),
    )
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("endpoint", "text", (c) => c.notNull())
    .addColumn("key_p256dh", "text", (c) => c.notNull())
    .addColumn("key_auth", "text", (c) => c.notNull())
    .addColumn("standard", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("alerts", "jsonb", (c) => c.notNull())
    .addColumn("policy", "text", (c) => c.notNull())
    // The access token itself, encrypted: the push payload carries it for the app.
    .addColumn("sealed_token", "text", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("push_subscriptions_account").on("push_subscriptions").column("account_id").execute();
  await db.schema
    .createTable("push_deliveries")
    .addColumn("subscription_id", "bigint", (c) => c.notNull().references("push_subscriptions.id").onDelete("cascade"))
    .addColumn("notification_id", "bigint", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addPrimaryKeyConstraint("push_deliveries_pk", ["subscription_id", "notification_id"])
    .execute();
  await db.schema.createIndex("push_deliveries_created").on("push_deliveries").column("created_at").execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("push_deliveries").execute();
  await db.schema.dropTable("push_subscriptions").execute();
}
