// How a thread's one SQLite connection is lent to the queries that want it at once: in turn by
// src/db/pool_waits.ts, against Kysely's own lock for single-connection drivers, whose every waiter
// wakes at each release (the cost grows with the square of the queue). The same queries on the same
// file, one at a time and BENCH_QUERIES at once, three rounds each.
//   npm run bench:lending
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Kysely, SqliteDialect } from "kysely";
import { migrate } from "../src/db/index.ts";
import { timedDialect } from "../src/db/pool_waits.ts";
import type { Database } from "../src/db/schema.ts";
import { NodeSqliteDatabase } from "../src/db/sqlite.ts";
import { log } from "./lib.ts";

const QUERIES = Number(process.env.BENCH_QUERIES ?? 20_000);
const dir = mkdtempSync(join(tmpdir(), "rookery-bench-lending-"));
const file = join(dir, "lending.sqlite");

const open = (turns: boolean) => {
  const dialect = new SqliteDialect({ database: new NodeSqliteDatabase(file, { checkpoints: false }) });
  return new Kysely<Database>({ dialect: turns ? timedDialect(dialect, { observe: null, inUse: 0 }) : dialect });
};

const setup = open(true);
await migrate(setup);
await setup.destroy();
log(
  `load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}`,
);
for (const [name, turns] of [
  ["Kysely's lock", false],
  ["in turn", true],
] as const) {
  const db = open(turns);
  const query = () => db.selectFrom("accounts").select("id").limit(1).execute();
  for (let round = 1; round <= 3; round++) {
    let started = performance.now();
    for (let i = 0; i < QUERIES; i++) await query();
    const alone = ((performance.now() - started) * 1000) / QUERIES;
    started = performance.now();
    await Promise.all(Array.from({ length: QUERIES }, query));
    const together = ((performance.now() - started) * 1000) / QUERIES;
    log(
      `${name}, round ${round}: one at a time ${alone.toFixed(1)} µs a query, ${QUERIES} at once ${together.toFixed(1)} µs`,
    );
  }
  await db.destroy();
}
rmSync(dir, { recursive: true, force: true });
