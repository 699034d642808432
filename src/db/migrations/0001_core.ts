// The core tables: accounts and their users, OAuth, relationships, statuses, instance settings, jobs.
// Column types are the ones both databases understand: bigint, integer, text, boolean, timestamptz, jsonb.
// On SQLite the declared type drives the row adapter (src/db/sqlite.ts).
import { type Kysely, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("accounts")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("username", "text", (c) => c.notNull())
    .addColumn("domain", "text")
    // lower(username)@lower(domain), empty domain for local accounts: case-insensitive uniqueness.
    .addColumn("acct_key", "text", (c) => c.notNull().unique())
    .addColumn("display_name", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("note", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("note_html", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("fields", "jsonb", (c) => c.notNull().defaultTo("[]"))
    .addColumn("avatar_file", "text")
    .addColumn("avatar_remote_url", "text")
    .addColumn("header_file", "text")
    .addColumn("header_remote_url", "text")
    .addColumn("actor_type", "text", (c) => c.notNull().defaultTo("Person"))
    .addColumn("locked", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("discoverable", "boolean")
    .addColumn("indexable", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("hide_collections", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("uri", "text", (c) => c.notNull().unique())
    .addColumn("url", "text")
    .addColumn("inbox_url", "text")
    .addColumn("shared_inbox_url", "text")
    .addColumn("outbox_url", "text")
    .addColumn("followers_url", "text")
    .addColumn("following_url", "text")
    .addColumn("featured_url", "text")
    .addColumn("public_key", "text")
    .addColumn("private_key", "text")
    .addColumn("moved_to_account_id", "bigint")
    .addColumn("suspended_at", "timestamptz")
    .addColumn("silenced_at", "timestamptz")
    .addColumn("fetched_at", "timestamptz")
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("accounts_domain").on("accounts").column("domain").execute();

  // Counters move in the same transaction as the change that moves them.
  await db.schema
    .createTable("account_stats")
    .addColumn("account_id", "bigint", (c) => c.primaryKey().references("accounts.id").onDelete("cascade"))
    .addColumn("followers_count", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("following_count", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("statuses_count", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("last_status_at", "timestamptz")
    .execute();

  await db.schema
    .createTable("users")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("account_id", "bigint", (c) => c.notNull().unique().references("accounts.id").onDelete("cascade"))
    .addColumn("email", "text", (c) => c.notNull().unique())
    .addColumn("password_hash", "text", (c) => c.notNull())
    .addColumn("role", "text", (c) => c.notNull().defaultTo("user"))
    .addColumn("confirmed_at", "timestamptz")
    .addColumn("confirmation_token_hash", "text")
    .addColumn("approved", "boolean", (c) => c.notNull().defaultTo(true))
    .addColumn("disabled", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("locale", "text")
    .addColumn("sign_up_reason", "text")
    .addColumn("sign_up_ip", "text")
    .addColumn("date_of_birth", "text")
    .addColumn("settings", "jsonb", (c) => c.notNull().defaultTo("{}"))
    .addColumn("current_sign_in_at", "timestamptz")
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("oauth_applications")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("website", "text")
    .addColumn("redirect_uris", "jsonb", (c) => c.notNull())
    .addColumn("scopes", "text", (c) => c.notNull())
    .addColumn("client_id", "text", (c) => c.notNull().unique())
    .addColumn("client_secret_hash", "text", (c) => c.notNull())
    .addColumn("owner_user_id", "bigint", (c) => c.references("users.id").onDelete("cascade"))
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("oauth_access_grants")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("code_hash", "text", (c) => c.notNull().unique())
    .addColumn("application_id", "bigint", (c) => c.notNull().references("oauth_applications.id").onDelete("cascade"))
    .addColumn("user_id", "bigint", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("redirect_uri", "text", (c) => c.notNull())
    .addColumn("scopes", "text", (c) => c.notNull())
    .addColumn("code_challenge", "text")
    .addColumn("code_challenge_method", "text")
    .addColumn("expires_at", "timestamptz", (c) => c.notNull())
    .addColumn("used_at", "timestamptz")
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("oauth_access_tokens")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("application_id", "bigint", (c) => c.references("oauth_applications.id").onDelete("cascade"))
    .addColumn("user_id", "bigint", (c) => c.references("users.id").onDelete("cascade"))
    .addColumn("scopes", "text", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("revoked_at", "timestamptz")
    .addColumn("last_used_at", "timestamptz")
    .execute();
  await db.schema.createIndex("oauth_access_tokens_user").on("oauth_access_tokens").column("user_id").execute();

  // Relationships. Every table is keyed (account, target) with the reverse lookup indexed.
  for (const table of ["follows", "follow_requests"]) {
    await db.schema
      .createTable(table)
      .addColumn("id", "bigint", (c) => c.primaryKey())
      .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
      .addColumn("target_account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
      .addColumn("show_reblogs", "boolean", (c) => c.notNull().defaultTo(true))
      .addColumn("notify", "boolean", (c) => c.notNull().defaultTo(false))
      .addColumn("languages", "jsonb")
      .addColumn("uri", "text")
      .addColumn("created_at", "timestamptz", (c) => c.notNull())
      .addUniqueConstraint(`${table}_pair`, ["account_id", "target_account_id"])
      .execute();
    await db.schema.createIndex(`${table}_target`).on(table).columns(["target_account_id", "id"]).execute();
  }
  await db.schema
    .createTable("blocks")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("target_account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("uri", "text")
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addUniqueConstraint("blocks_pair", ["account_id", "target_account_id"])
    .execute();
  await db.schema.createIndex("blocks_target").on("blocks").column("target_account_id").execute();
  await db.schema
    .createTable("mutes")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("target_account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("hide_notifications", "boolean", (c) => c.notNull().defaultTo(true))
    .addColumn("expires_at", "timestamptz")
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addUniqueConstraint("mutes_pair", ["account_id", "target_account_id"])
    .execute();
  await db.schema
    .createTable("account_domain_blocks")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("domain", "text", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addUniqueConstraint("account_domain_blocks_pair", ["account_id", "domain"])
    .execute();

  await db.schema
    .createTable("statuses")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("uri", "text", (c) => c.notNull().unique())
    .addColumn("url", "text")
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("local", "boolean", (c) => c.notNull())
    .addColumn("visibility", "text", (c) => c.notNull())
    .addColumn("text", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("content", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("spoiler_text", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("sensitive", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("language", "text")
    .addColumn("in_reply_to_id", "bigint")
    .addColumn("in_reply_to_account_id", "bigint")
    .addColumn("reblog_of_id", "bigint")
    .addColumn("conversation_id", "bigint")
    .addColumn("application_id", "bigint")
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull())
    .addColumn("edited_at", "timestamptz")
    .addColumn("deleted_at", "timestamptz")
    .execute();
  await db.schema.createIndex("statuses_account").on("statuses").columns(["account_id", "id"]).execute();
  await db.schema.createIndex("statuses_reply").on("statuses").column("in_reply_to_id").execute();
  await db.schema.createIndex("statuses_reblog").on("statuses").column("reblog_of_id").execute();

  await db.schema
    .createTable("status_stats")
    .addColumn("status_id", "bigint", (c) => c.primaryKey().references("statuses.id").onDelete("cascade"))
    .addColumn("replies_count", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("reblogs_count", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("favourites_count", "integer", (c) => c.notNull().defaultTo(0))
    .execute();

  // Instance-level moderation and texts.
  await db.schema
    .createTable("domain_blocks")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("domain", "text", (c) => c.notNull().unique())
    .addColumn("severity", "text", (c) => c.notNull())
    .addColumn("reject_media", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("reject_reports", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("obfuscate", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("public_comment", "text")
    .addColumn("private_comment", "text")
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("rules")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("text", "text", (c) => c.notNull())
    .addColumn("hint", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("priority", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("site_settings")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("value", "jsonb", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull())
    .execute();
  // One row per account and ISO week in which it used the API: the weekly "logins" of /instance/activity.
  await db.schema
    .createTable("weekly_activity")
    .addColumn("week", "text", (c) => c.notNull())
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addPrimaryKeyConstraint("weekly_activity_pk", ["week", "account_id"])
    .execute();

  // The durable job queue (src/jobs/queue.ts).
  await db.schema
    .createTable("jobs")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("payload", "jsonb", (c) => c.notNull())
    .addColumn("run_at", "timestamptz", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("max_attempts", "integer", (c) => c.notNull())
    .addColumn("locked_until", "timestamptz")
    .addColumn("last_error", "text")
    // Set when the job ran out of attempts; kept for the operator to inspect.
    .addColumn("failed_at", "timestamptz")
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("jobs_due")
    .on("jobs")
    .columns(["run_at", "id"])
    .where(sql.ref("failed_at"), "is", null)
    .execute();

  // Key-value store with expiry (Fedify's caches, idempotency keys).
  await db.schema
    .createTable("kv")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("value", "jsonb", (c) => c.notNull())
    .addColumn("expires_at", "timestamptz")
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    "kv",
    "jobs",
    "weekly_activity",
    "site_settings",
    "rules",
    "domain_blocks",
    "status_stats",
    "statuses",
    "account_domain_blocks",
    "mutes",
    "blocks",
    "follow_requests",
    "follows",
    "oauth_access_tokens",
    "oauth_access_grants",
    "oauth_applications",
    "users",
    "account_stats",
    "accounts",
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
