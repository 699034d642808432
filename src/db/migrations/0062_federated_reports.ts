// Reports that travel between servers: a report's `uri` is the id of its Flag, the one this server
// sent when it forwarded a report, or the one another server sent, by which a Flag delivered again
// finds the report it made.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("reports").addColumn("uri", "text").execute();
  await db.schema.createIndex("reports_uri").on("reports").column("uri").execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("reports_uri").execute();
  await db.schema.alterTable("reports").dropColumn("uri").execute();
}
