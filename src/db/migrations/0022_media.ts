// Media attachments. A row is made at upload, processed at once or by a job (`processing`), attached
// to a status by `status_id` with its place in `position`, and kept by a scheduled status until it
// is posted. An edit that takes media out of a status keeps the row (position null) for the history.
import { type Kysely, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("media_attachments")
    .addColumn("id", "bigint", (c) => c.primaryKey())
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id").onDelete("cascade"))
    .addColumn("status_id", "bigint")
    .addColumn("position", "integer")
    .addColumn("scheduled_status_id", "bigint")
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("processing", "text", (c) => c.notNull())
    .addColumn("upload_key", "text")
    .addColumn("file_key", "text")
    .addColumn("preview_key", "text")
    .addColumn("content_type", "text")
    .addColumn("file_size", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("meta", "jsonb", (c) => c.notNull())
    .addColumn("description", "text")
    .addColumn("blurhash", "text")
    .addColumn("remote_url", "text")
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("media_attachments_status").on("media_attachments").column("status_id").execute();
  await db.schema
    .createIndex("media_attachments_account")
    .on("media_attachments")
    .columns(["account_id", "id"])
    .execute();
  await db.schema
    .createIndex("media_attachments_unattached")
    .on("media_attachments")
    .column("updated_at")
    .where(sql.ref("status_id"), "is", null)
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("media_attachments").execute();
}
