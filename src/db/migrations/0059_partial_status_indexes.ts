// The indexes of boosts and of replies hold boosts and replies only. Holding every other status
// under a null key, they were what SQLite chose for `reblog_of_id is null` and `in_reply_to_id is
// null` (without statistics it takes any equality for a selective one): a page of the public
// timeline then read and sorted all statuses, about 2 s at 200,000 statuses, instead of walking
// them newest first (0.1 ms). Partial indexes still serve the lookups (`reblog_of_id = ?` implies
// not null) and cannot serve those conditions.
import type { Kysely } from "kysely";
import { sql } from "kysely";

const INDEXES = [
  ["statuses_reblog", "reblog_of_id"],
  ["statuses_reply", "in_reply_to_id"],
] as const;

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema as it was then
export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, column] of INDEXES) {
    await db.schema.dropIndex(name).execute();
    await db.schema.createIndex(name).on("statuses").column(column).where(sql.ref(column), "is not", null).execute();
  }
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  for (const [name, column] of INDEXES) {
    await db.schema.dropIndex(name).execute();
    await db.schema.createIndex(name).on("statuses").column(column).execute();
  }
}
