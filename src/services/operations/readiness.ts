// Whether this process can serve: its database answers (on SQLite, takes a write), and Redis, when
// configured, answers a PING. Load balancers and systemd ask through GET /health/ready; `rookery
// doctor` asks the same questions.
import { sql } from "kysely";
import type { Runtime } from "../../runtime.ts";

export interface Check {
  name: string;
  ok: boolean;
  /** A short reason: what answered, or what failed. */
  detail: string;
}

/** How long a check may take before it counts as failed: a health probe has a deadline of its own. */
const CHECK_TIMEOUT_MS = 4000;

function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} did not answer within ${CHECK_TIMEOUT_MS} ms`)),
      CHECK_TIMEOUT_MS,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function check(name: string, run: () => Promise<string>): Promise<Check> {
  try {
    return { name, ok: true, detail: await withTimeout(run(), name) };
  } catch (error) {
    return { name, ok: false, detail: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * PostgreSQL: a round trip on a pooled connection. SQLite is a file in this process, always there
 * to read: what keeps it from serving is another process holding its write lock (or a read-only
 * disk), so the check begins a write transaction, changing nothing, and ends it.
 */
export function checkDatabase(rt: Runtime): Promise<Check> {
  return check("database", async () => {
    if (rt.dialect === "postgres") {
      await sql`select 1`.execute(rt.db);
      return "PostgreSQL answers";
    }
    await rt.db.transaction().execute((trx) =>
      trx
        .deleteFrom("kysely_migration_lock" as never)
        .where(sql<boolean>`0`)
        .execute(),
    );
    return "SQLite takes writes";
  });
}

export function checkRedis(rt: Runtime): Promise<Check> | null {
  if (!rt.config.redisUrl) return null;
  return check("redis", async () => {
    await rt.bus.ping();
    return "Redis answers";
  });
}

/** The checks of readiness, run side by side. */
export async function readiness(rt: Runtime): Promise<Check[]> {
  const checks = await Promise.all([checkDatabase(rt), checkRedis(rt)]);
  return checks.filter((c) => c !== null);
}
