// Case-insensitive LIKE matches of what people type, with LIKE's own wildcards (% and _) and the
// escape character taken literally, the same on SQLite and PostgreSQL.
import { sql } from "kysely";

const escapeLike = (text: string) => text.toLowerCase().replace(/[\\%_]/g, (m) => `\\${m}`);

export const startsWith = (column: string, text: string) =>
  sql<boolean>`lower(${sql.ref(column)}) like ${`${escapeLike(text)}%`} escape '\\'`;

export const contains = (column: string, text: string) =>
  sql<boolean>`lower(${sql.ref(column)}) like ${`%${escapeLike(text)}%`} escape '\\'`;
