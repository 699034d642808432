// The exceptions to "a live, listed status by an author in good standing", in indexes of their own:
// a feed page asks them of each of its statuses and authors (src/services/visibility/sql.ts,
// visibleEntry), and they hold only the few statuses and accounts they name.
import type { Kysely } from "kysely";
import { sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex("statuses_exceptions")
    .on("statuses")
    .column("id")
    .where(sql<boolean>`deleted_at is not null or visibility in ('private', 'direct')`)
    .execute();
  await db.schema
    .createIndex("accounts_suspended")
    .on("accounts")
    .column("id")
    .where(sql<boolean>`suspended_at is not null`)
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("statuses_exceptions").execute();
  await db.schema.dropIndex("accounts_suspended").execute();
}
