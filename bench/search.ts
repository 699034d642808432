// The search benchmark (`npx node bench/search.ts`): GET /api/v2/search?type=statuses over the
// timeline benchmark's seed (200,000 statuses by 2,000 authors, bench/seed.ts), on SQLite and, when
// reachable, on PostgreSQL. Half the authors opt in to search (`indexable`); the searcher is the
// seed's reader, who follows 500 of them and has favourited 200 statuses. Each query is asked
// REQUESTS times one after another (after a warm-up), from this process to a server running as its
// own process (`rookery serve`), so each latency is one search's; the p50 and p99 are reported.
// BENCH_ONLY=sqlite|postgres measures one database; BENCH_PG_URL names the PostgreSQL admin URL.
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { loadConfig } from "../src/config.ts";
import { newId } from "../src/domain/ids.ts";
import { configureLogging } from "../src/log.ts";
import { createRuntime } from "../src/runtime.ts";
import { reindexStatuses } from "../src/services/search/status_index.ts";
import { freePort, log, percentile, serverEnv, startRookery, stopRookery } from "./lib.ts";
import { SEED, seed } from "./seed.ts";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const WARMUP = 20;
const ONLY = process.env.BENCH_ONLY;
const PG_ADMIN = process.env.BENCH_PG_URL ?? "postgres://root@127.0.0.1:5432/postgres";

/** What people search for: a rare word, common ones, a phrase, operators, nothing found. */
const QUERIES = [
  "author777",
  "birds",
  "status birds",
  '"by author42"',
  "birds from:author42",
  "birds -author3",
  "birds in:library",
  "birds language:en is:reply",
  "penguin",
];

interface Row {
  query: string;
  found: number;
  p50: number;
  p99: number;
}

async function benchDialect(databaseUrl: string, dataDir: string): Promise<Row[]> {
  const port = await freePort();
  const env = { ...serverEnv(port, dataDir, databaseUrl), RATE_LIMITS: "off" };
  const rt = await createRuntime(loadConfig(env), { sqliteCheckpoints: false });
  let server: ChildProcess | null = null;
  try {
    log("seeding…");
    const seeded = await seed(rt, log);
    await rt.db
      .updateTable("accounts")
      .set({ indexable: true })
      .where("username", "like", "author%")
      .where("id", "in", (eb) =>
        eb
          .selectFrom("accounts")
          .select("id")
          .where("username", "like", "author%")
          .orderBy("id")
          .limit(SEED.authors / 2),
      )
      .execute();
    const reader = await rt.db
      .selectFrom("accounts")
      .select("id")
      .where("username", "=", "reader")
      .executeTakeFirstOrThrow();
    const liked = await rt.db.selectFrom("statuses").select("id").orderBy("id").limit(200).offset(1000).execute();
    await rt.db
      .insertInto("favourites")
      .values(liked.map((s) => ({ id: newId(), account_id: reader.id, status_id: s.id, created_at: new Date() })))
      .execute();
    log("indexing…");
    const started = Date.now();
    const indexed = await reindexStatuses(rt.db, rt.dialect);
    log(`indexed ${indexed} statuses in ${Math.round((Date.now() - started) / 1000)} s`);
    if (rt.dialect === "postgres") await analyzeAll(databaseUrl);

    server = await startRookery(env, port);
    const base = `http://127.0.0.1:${port}`;
    const headers = { authorization: `Bearer ${seeded.readerToken}` };
    const rows: Row[] = [];
    for (const query of QUERIES) {
      const url = `${base}/api/v2/search?type=statuses&limit=20&q=${encodeURIComponent(query)}`;
      const times: number[] = [];
      let found = 0;
      for (let i = 0; i < WARMUP + REQUESTS; i++) {
        const t0 = performance.now();
        const res = await fetch(url, { headers });
        const body = await res.json();
        const elapsed = performance.now() - t0;
        if (res.status !== 200) throw new Error(`${query}: ${res.status} ${JSON.stringify(body)}`);
        found = body.statuses.length;
        if (i >= WARMUP) times.push(elapsed);
      }
      const row = {
        query,
        found,
        p50: Math.round(percentile(times, 50) * 10) / 10,
        p99: Math.round(percentile(times, 99) * 10) / 10,
      };
      log(`${query}: ${row.found} found, p50 ${row.p50} ms, p99 ${row.p99} ms`);
      rows.push(row);
    }
    return rows;
  } finally {
    await stopRookery(server);
    await rt.close();
  }
}

/**
 * Statistics for the planner, as autovacuum would gather a while after the index filled up and
 * the accounts opted in (without them, PostgreSQL takes indexable accounts for a rarity).
 */
async function analyzeAll(url: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query("vacuum analyze");
  await c.end();
}

async function withPostgres<T>(fn: (url: string) => Promise<T>): Promise<T | null> {
  const admin = new pg.Client({ connectionString: PG_ADMIN });
  try {
    await admin.connect();
  } catch {
    log(`PostgreSQL not reachable at ${PG_ADMIN}: skipped`);
    return null;
  }
  const name = `rookery_search_bench_${Date.now()}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(PG_ADMIN);
  url.pathname = `/${name}`;
  try {
    return await fn(url.toString());
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

await configureLogging("silent");
const results: { dialect: string; rows: Row[] }[] = [];
for (const dialect of ["sqlite", "postgres"]) {
  if (ONLY && ONLY !== dialect) continue;
  const dir = mkdtempSync(join(tmpdir(), "rookery-search-bench-"));
  try {
    log(`${dialect}:`);
    const rows =
      dialect === "sqlite"
        ? await benchDialect(`sqlite:${join(dir, "bench.sqlite")}`, dir)
        : await withPostgres((url) => benchDialect(url, dir));
    if (rows) results.push({ dialect, rows });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(
  [
    `Search: GET /api/v2/search?type=statuses&limit=20, ${REQUESTS} requests each, one at a time` +
      ` (${SEED.authors * SEED.statusesPerAuthor} statuses; half the authors indexable). Target: every p99 under 50 ms.`,
    "",
    `| query | ${results.map((r) => `${r.dialect} found | p50 ms | p99 ms`).join(" | ")} |`,
    `|---|${results.map(() => "---|---|---|").join("")}`,
    ...QUERIES.map(
      (q, i) =>
        `| \`${q}\` | ${results.map((r) => `${r.rows[i].found} | ${r.rows[i].p50} | ${r.rows[i].p99}`).join(" | ")} |`,
    ),
  ].join("\n"),
);
