// Other servers' media kept on this server's storage: each remote attachment's place in the cache,
// and the files of remote custom emojis. Remote avatars and headers use the accounts' own file columns.
import { type Kysely, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("media_attachments").addColumn("remote_state", "text").execute();
  // Attachments stored before the cache existed are fetched when first asked for.
  await db.updateTable("media_attachments").set({ remote_state: "lazy" }).where("remote_url", "is not", null).execute();
  await db.schema
    .createIndex("media_attachments_remote_state")
    .on("media_attachments")
    .columns(["remote_state", "id"])
    .where(sql.ref("remote_state"), "is not", null)
    .execute();
  await db.schema.alterTable("remote_emojis").addColumn("image_file", "text").execute();
  await db.schema.alterTable("remote_emojis").addColumn("static_file", "text").execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("media_attachments_remote_state").execute();
  await db.schema.alterTable("media_attachments").dropColumn("remote_state").execute();
  await db.schema.alterTable("remote_emojis").dropColumn("image_file").execute();
  await db.schema.alterTable("remote_emojis").dropColumn("static_file").execute();
}
