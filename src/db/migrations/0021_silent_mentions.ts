// A mention that an edit takes out of a status stays, marked silent: the account it named keeps
// access to the status (and its notification and conversation stay consistent with that), but the
// status no longer shows the mention and nothing notifies it again. Mastodon keeps such mentions
// the same way.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("status_mentions")
    .addColumn("silent", "boolean", (c) => c.notNull().defaultTo(false))
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("status_mentions").dropColumn("silent").execute();
}
