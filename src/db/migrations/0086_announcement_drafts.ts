// Announcements can be taken back without being deleted, as on Mastodon: an unpublished one is
// kept, out of everyone's sight, until staff publish it again.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("announcements")
    .addColumn("published", "boolean", (c) => c.notNull().defaultTo(true))
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("announcements").dropColumn("published").execute();
}
