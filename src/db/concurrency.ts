// What two requests for the same thing at once need from the database: a lock that orders a check
// and the write it allows, and knowing the unique violation that a write racing another still meets.
import type { Db, Dialect } from "./index.ts";

/**
 * Holds a row until the transaction ends, so that the checks an account's write depends on (a
 * limit, "not boosted yet", "not voted yet") and the write itself are not interleaved with another
 * request's. PostgreSQL only: SQLite's transactions take the write lock as they begin. `FOR NO KEY
 * UPDATE` leaves the row free for the key-share locks of foreign keys pointing at it.
 */
export async function lockRow(db: Db, dialect: Dialect, table: "accounts" | "polls", id: string): Promise<void> {
  if (dialect !== "postgres") return;
  await db.selectFrom(table).select("id").where("id", "=", id).forNoKeyUpdate().execute();
}

/** PostgreSQL's unique_violation; node:sqlite's SQLITE_CONSTRAINT_UNIQUE and _PRIMARYKEY. */
const PG_UNIQUE = "23505";
const SQLITE_UNIQUE = new Set([2067, 1555]);

/** A write met a unique constraint (another request added the same row first). */
export function uniqueViolation(error: unknown): boolean {
  for (let e = error; e instanceof Error; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === PG_UNIQUE) return true;
    const errcode = (e as { errcode?: unknown }).errcode;
    if (typeof errcode === "number" && SQLITE_UNIQUE.has(errcode)) return true;
  }
  return false;
}
