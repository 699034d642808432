// Each version of an edited status remembers its media (ids in order, with the descriptions and
// focus points they had then), so that the history shows what a status looked like.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("status_edits").addColumn("media", "jsonb").execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("status_edits").dropColumn("media").execute();
}
