// Each version of an edited status remembers its poll's options (null: no poll), as Mastodon's
// StatusEdit keeps `poll_options`, so that the history shows what the poll asked then.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("status_edits").addColumn("poll_options", "jsonb").execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("status_edits").dropColumn("poll_options").execute();
}
