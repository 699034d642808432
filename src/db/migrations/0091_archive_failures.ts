// When the job making an archive gave up: a failed archive does not count against the one a week,
// and the settings page says it failed.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("archives").addColumn("failed_at", "timestamptz").execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("archives").dropColumn("failed_at").execute();
}
