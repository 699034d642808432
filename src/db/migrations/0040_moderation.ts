// Moderation: the audit log of staff actions, the warnings an account receives (and their
// notifications), forced-sensitive media, the relationships a domain block severs, the sign-up
// blocks (addresses, email domains, canonical emails), allowed domains, and the review of tags and
// statuses for trends.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("admin_action_logs")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    // No reference: the log outlives the accounts it names.
    .addColumn("account_id", "bigint", (c) => c.notNull())
    .addColumn("action", "text", (c) => c.notNull())
    .addColumn("target_type", "text", (c) => c.notNull())
    .addColumn("target_id", "text")
    .addColumn("human_identifier", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("text", "text")
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .execute();

  await db.schema.alterTable("accounts").addColumn("sensitized_at", "timestamptz").execute();

  await db.schema
    .createTable("account_warnings")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("account_id", "bigint", (c) => c.references("accounts.id").onDelete("set null"))
    .addColumn("target_account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("action", "text", (c) => c.notNull())
    .addColumn("text", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("status_ids", "jsonb", (c) => c.notNull())
    .addColumn("report_id", "bigint", (c) => c.references("reports.id").onDelete("set null"))
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("account_warnings_target").on("account_warnings").column("target_account_id").execute();

  await db.schema
    .createTable("relationship_severance_events")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("target_name", "text", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("account_severances")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("event_id", "bigint", (c) =>
      c.notNull().references("relationship_severance_events.id").onDelete("cascade"),
    )
    .addColumn("followers_count", "integer", (c) => c.notNull())
    .addColumn("following_count", "integer", (c) => c.notNull())
    .execute();

  await db.schema
    .alterTable("notifications")
    .addColumn("account_warning_id", "bigint", (c) => c.references("account_warnings.id").onDelete("cascade"))
    .execute();
  await db.schema
    .alterTable("notifications")
    .addColumn("account_severance_id", "bigint", (c) => c.references("account_severances.id").onDelete("cascade"))
    .execute();

  await db.schema
    .createTable("ip_blocks")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("ip", "text", (c) => c.notNull().unique())
    .addColumn("severity", "text", (c) => c.notNull())
    .addColumn("comment", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("expires_at", "timestamptz")
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("email_domain_blocks")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("domain", "text", (c) => c.notNull().unique())
    .addColumn("allow_with_approval", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("canonical_email_blocks")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("canonical_email_hash", "text", (c) => c.notNull().unique())
    .addColumn("reference_account_id", "bigint", (c) => c.references("accounts.id").onDelete("set null"))
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("domain_allows")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("domain", "text", (c) => c.notNull().unique())
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull())
    .execute();

  await db.schema.alterTable("tags").addColumn("usable", "boolean").execute();
  await db.schema.alterTable("tags").addColumn("listable", "boolean").execute();
  await db.schema.alterTable("statuses").addColumn("trendable", "boolean").execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("statuses").dropColumn("trendable").execute();
  await db.schema.alterTable("tags").dropColumn("listable").execute();
  await db.schema.alterTable("tags").dropColumn("usable").execute();
  for (const table of ["domain_allows", "canonical_email_blocks", "email_domain_blocks", "ip_blocks"]) {
    await db.schema.dropTable(table).execute();
  }
  await db.schema.alterTable("notifications").dropColumn("account_severance_id").execute();
  await db.schema.alterTable("notifications").dropColumn("account_warning_id").execute();
  await db.schema.dropTable("account_severances").execute();
  await db.schema.dropTable("relationship_severance_events").execute();
  await db.schema.dropTable("account_warnings").execute();
  await db.schema.alterTable("accounts").dropColumn("sensitized_at").execute();
  await db.schema.dropTable("admin_action_logs").execute();
}
