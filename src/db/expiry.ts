// Rows that end at a set time (timed mutes) count only while that time lies ahead: an expired row is
// treated as absent by every reader, whether or not a clean-up has removed it yet.
import { sql } from "kysely";

/** `column IS NULL OR column > now`, for a nullable `expires_at`-style column. */
export function unexpired(column: string, now: Date = new Date()) {
  const ref = sql.ref(column);
  return sql<boolean>`(${ref} is null or ${ref} > ${now})`;
}
