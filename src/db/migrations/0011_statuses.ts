// What statuses carry and what people do with them: mentions, hashtags, favourites, bookmarks,
// pins, muted conversations, edit history, followed hashtags.
import { type Kysely, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("status_mentions")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("status_id", "bigint", (c) => c.notNull().references("statuses.id").onDelete("cascade"))
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addUniqueConstraint("status_mentions_pair", ["status_id", "account_id"])
    .execute();
  await db.schema
    .createIndex("status_mentions_account")
    .on("status_mentions")
    .columns(["account_id", "status_id"])
    .execute();

  await db.schema
    .createTable("tags")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull().unique())
    .addColumn("display_name", "text", (c) => c.notNull())
    .addColumn("last_status_at", "timestamptz")
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("status_tags")
    .addColumn("tag_id", "bigint", (c) => c.notNull().references("tags.id").onDelete("cascade"))
    .addColumn("status_id", "bigint", (c) => c.notNull().references("statuses.id").onDelete("cascade"))
    .addPrimaryKeyConstraint("status_tags_pk", ["tag_id", "status_id"])
    .execute();
  await db.schema.createIndex("status_tags_status").on("status_tags").column("status_id").execute();

  for (const table of ["favourites", "bookmarks", "status_pins"]) {
    await db.schema
      .createTable(table)
      .addColumn("id", "bigint", (c) => c.primaryKey())
      .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
      .addColumn("status_id", "bigint", (c) => c.notNull().references("statuses.id").onDelete("cascade"))
      .addColumn("created_at", "timestamptz", (c) => c.notNull())
      .addUniqueConstraint(`${table}_pair`, ["account_id", "status_id"])
      .execute();
    await db.schema.createIndex(`${table}_status`).on(table).columns(["status_id", "id"]).execute();
  }

  await db.schema
    .createTable("conversation_mutes")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("conversation_id", "bigint", (c) => c.notNull())
    .addUniqueConstraint("conversation_mutes_pair", ["account_id", "conversation_id"])
    .execute();

  await db.schema
    .createTable("status_edits")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("status_id", "bigint", (c) => c.notNull().references("statuses.id").onDelete("cascade"))
    .addColumn("account_id", "bigint", (c) => c.notNull())
    .addColumn("text", "text", (c) => c.notNull())
    .addColumn("content", "text", (c) => c.notNull())
    .addColumn("spoiler_text", "text", (c) => c.notNull())
    .addColumn("sensitive", "boolean", (c) => c.notNull())
    .addColumn("language", "text")
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("status_edits_status").on("status_edits").columns(["status_id", "id"]).execute();

  await db.schema
    .createTable("tag_follows")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("tag_id", "bigint", (c) => c.notNull().references("tags.id").onDelete("cascade"))
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addUniqueConstraint("tag_follows_pair", ["account_id", "tag_id"])
    .execute();
  await db.schema.createIndex("tag_follows_tag").on("tag_follows").column("tag_id").execute();

  // Reading threads and a person's reblog of a status.
  await db.schema.createIndex("statuses_conversation").on("statuses").column("conversation_id").execute();
  await db.schema
    .createIndex("statuses_account_reblog")
    .on("statuses")
    .columns(["account_id", "reblog_of_id"])
    .execute();
  // Local public statuses, newest first (public timelines).
  await db.schema
    .createIndex("statuses_public")
    .on("statuses")
    .columns(["id"])
    .where(sql.ref("visibility"), "=", "public")
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("statuses_public").execute();
  await db.schema.dropIndex("statuses_account_reblog").execute();
  await db.schema.dropIndex("statuses_conversation").execute();
  for (const t of [
    "tag_follows",
    "status_edits",
    "conversation_mutes",
    "status_pins",
    "bookmarks",
    "favourites",
    "status_tags",
    "tags",
    "status_mentions",
  ]) {
    await db.schema.dropTable(t).execute();
  }
}
