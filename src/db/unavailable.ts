// Telling "the database is away" (restarting, failing over, cut off, or on SQLite busy past the
// wait) from every other failure: those requests answer 503 with Retry-After, not 500, and the
// same request succeeds once the database is back.

/** PostgreSQL's classes and codes for a connection lost or refused (admin_shutdown, crash_shutdown…). */
const PG_CODES = /^(08|57P0[1-4]|53300$|58)/;
const NODE_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH"]);
const MESSAGES =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|database is locked|database table is locked|SQLITE_BUSY/i;

export function databaseUnavailable(error: unknown): boolean {
  for (let e = error; e instanceof Error; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && (PG_CODES.test(code) || NODE_CODES.has(code))) return true;
    // node:sqlite: SQLITE_BUSY (5) and SQLITE_LOCKED (6), with their extended codes.
    const errcode = (e as { errcode?: unknown }).errcode;
    if (typeof errcode === "number" && [5, 6].includes(errcode & 0xff)) return true;
    if (MESSAGES.test(e.message)) return true;
    if (e instanceof AggregateError && e.errors.some(databaseUnavailable)) return true;
  }
  return false;
}

/** Seconds a client is asked to wait: PostgreSQL restarts take seconds, SQLite's lock a moment. */
export function retryAfterSeconds(error: unknown): number {
  return /locked|BUSY/i.test(String(error)) ? 1 : 5;
}
