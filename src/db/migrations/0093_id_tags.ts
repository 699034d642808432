// Where the next process's block of id tags starts (src/db/id_tags.ts): one row.
import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("id_tags")
    .addColumn("next", "integer", (c) => c.notNull())
    .execute();
  await db.insertInto("id_tags").values({ next: 0 }).execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("id_tags").execute();
}
