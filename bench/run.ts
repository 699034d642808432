// The timeline benchmark (`npm run bench`): on SQLite and, when reachable, on PostgreSQL (over TCP
// and over its Unix socket).
//  1. GET /api/v1/timelines/home?limit=20 with 50 connections for 20 s, next to a bare node:http
//     hello world measured the same way; on a server whose rate limiter counts every request (its
//     limits raised so that it refuses none) and on one with it turned off, in turns, to show what
//     it costs;
//  2. POST /api/v1/statuses by an account with 10,000 local followers, 200 posts at 3 a second (so
//     that the p99 is not merely the slowest), measuring each post's latency and how long until the
//     status is in all 10,000 home feeds.
// The server runs as its own process (`rookery serve`), as in production; the load comes from this one.
// Where `taskset` exists, this process (the load generator) is held to the last core while it sends
// load; the server (with its web threads) and PostgreSQL may use every core.
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config.ts";
import { configureLogging } from "../src/log.ts";
import { createRuntime } from "../src/runtime.ts";
import {
  alternate,
  baseline,
  CONNECTIONS,
  DURATION,
  freePort,
  type Load,
  log,
  percentile,
  postgresDatabase,
  serverEnv,
  startRookery,
  stopRookery,
} from "./lib.ts";
import { SEED, seed } from "./seed.ts";

const POSTS = Number(process.env.BENCH_POSTS ?? 200);
const POSTS_PER_SECOND = 3;
const POST_WARMUP = 30;
/** Where PostgreSQL on this host listens for local connections, as on Debian and Ubuntu. */
const PG_SOCKET_DIR = "/var/run/postgresql";
/**
 * The PostgreSQL servers to measure (the admin database's URL): BENCH_PG_URL, or else the local one
 * over TCP and, where it has one, over its Unix socket (a database on the same host is usually
 * reached that way; it spares both sides the TCP stack on every query).
 */
const PG_TARGETS: { label: string; admin: string }[] = process.env.BENCH_PG_URL
  ? [{ label: "postgres", admin: process.env.BENCH_PG_URL }]
  : [
      { label: "postgres, TCP", admin: "postgres://root@127.0.0.1:5432/postgres" },
      ...(existsSync(join(PG_SOCKET_DIR, ".s.PGSQL.5432"))
        ? [{ label: "postgres, Unix socket", admin: `postgres://root@${encodeURIComponent(PG_SOCKET_DIR)}/postgres` }]
        : []),
    ];
/** `sqlite` or `postgres` to measure only one database. */
const ONLY = process.env.BENCH_ONLY;

/** Mastodon's limits would refuse the load within a second; raised, every request is still counted. */
const RAISED_RATE_LIMITS = { RATE_LIMIT_PER_TOKEN: "1000000000", RATE_LIMIT_PER_ACCOUNT: "1000000000" };

interface Result {
  dialect: string;
  home: Load;
  homeUnlimited: Load;
  post: { p50: number; p99: number; max: number; fanoutMax: number; fanoutP99: number };
}

async function benchDialect(dialect: string, databaseUrl: string, dataDir: string): Promise<Result> {
  const port = await freePort();
  const env = serverEnv(port, dataDir, databaseUrl);
  log(`seeding ${dialect}…`);
  const started = Date.now();
  // The server looks after the SQLite log; this connection only seeds and watches.
  const rt = await createRuntime(loadConfig(env), { sqliteCheckpoints: false });
  const seeded = await seed(rt, log);
  log(`seeded in ${Math.round((Date.now() - started) / 1000)} s`);

  // Two servers on the one database: the rate limiter counting every request (its limits raised
  // so that it refuses none), and the rate limiter turned off.
  const start = (serverPort: number, extra: Record<string, string>) => startRookery({ ...env, ...extra }, serverPort);
  const unlimitedPort = await freePort();
  let server: ChildProcess | null = null;
  let unlimited: ChildProcess | null = null;
  try {
    server = await start(port, RAISED_RATE_LIMITS);
    unlimited = await start(unlimitedPort, { RATE_LIMITS: "off" });
    const base = `http://127.0.0.1:${port}`;
    const auth = { authorization: `Bearer ${seeded.readerToken}` };
    const check = await (await fetch(`${base}/api/v1/timelines/home?limit=20`, { headers: auth })).json();
    if (!Array.isArray(check) || check.length !== 20)
      throw new Error(`home timeline: ${JSON.stringify(check).slice(0, 200)}`);
    log("GET /api/v1/timelines/home, rate limits on and off in turns…");
    const path = "/api/v1/timelines/home?limit=20";
    const [home, homeUnlimited] = await alternate([`${base}${path}`, `http://127.0.0.1:${unlimitedPort}${path}`], auth);
    log(`on: ${home.rps} requests/s, p50 ${home.p50} ms, p99 ${home.p99} ms (hello world: ${hello.rps})`);
    log(`off: ${homeUnlimited.rps} requests/s, p50 ${homeUnlimited.p50} ms, p99 ${homeUnlimited.p99} ms`);
    if (home.errors > 0) throw new Error(`home timeline: ${home.errors} errors (refused by the rate limiter?)`);
    await stopRookery(unlimited);

    log(`POST /api/v1/statuses to ${SEED.posterFollowers} followers…`);
    const latencies: number[] = [];
    const fanouts: number[] = [];
    const pending = new Map<string, number>();
    const posted: string[] = [];
    // Feeds are filled a chunk of followers at a time, in follow order, each chunk once the one before
    // it is written: a status is in every feed once it is in the feed of the last follower. Watching
    // that one feed keeps the watching light; the count of every status's entries is checked at the end.
    const last = await rt.db
      .selectFrom("follows")
      .select("account_id")
      .where("target_account_id", "=", seeded.posterId)
      .orderBy("id", "desc")
      .executeTakeFirstOrThrow();
    let done = false;
    const watcher = (async () => {
      while (!done || pending.size > 0) {
        const ids = [...pending.keys()];
        if (ids.length > 0) {
          const rows = await rt.db
            .selectFrom("feed_entries")
            .select("status_id")
            .where("feed_id", "=", last.account_id)
            .where("status_id", "in", ids)
            .execute();
          for (const r of rows) {
            fanouts.push(Date.now() - pending.get(r.status_id)!);
            pending.delete(r.status_id);
          }
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const headers = { authorization: `Bearer ${seeded.posterToken}`, "content-type": "application/json" };
    // As with the GET load, the first requests warm up and are not counted: the code paths, and the
    // statements a post runs on each pooled connection (PostgreSQL prepares a statement once per
    // connection and plans its first five runs afresh; a server that has been running has done so).
    for (let i = 0; i < POST_WARMUP; i++) {
      const res = await fetch(`${base}/api/v1/statuses`, {
        method: "POST",
        headers,
        body: JSON.stringify({ status: `Warm-up post ${i} #birds`, language: "en" }),
      });
      await res.json();
      await new Promise((r) => setTimeout(r, 1000 / POSTS_PER_SECOND));
    }
    for (let i = 0; i < POSTS; i++) {
      const t0 = performance.now();
      const res = await fetch(`${base}/api/v1/statuses`, {
        method: "POST",
        headers,
        body: JSON.stringify({ status: `Benchmark post ${i} #birds`, language: "en" }),
      });
      const body = await res.json();
      const elapsed = performance.now() - t0;
      if (res.status !== 200) throw new Error(`POST: ${res.status} ${JSON.stringify(body)}`);
      latencies.push(elapsed);
      pending.set(body.id, Date.now());
      posted.push(body.id);
      await new Promise((r) => setTimeout(r, Math.max(0, 1000 / POSTS_PER_SECOND - elapsed)));
    }
    done = true;
    const deadline = Date.now() + 30_000;
    await Promise.race([watcher, new Promise((r) => setTimeout(r, deadline - Date.now()))]);
    if (pending.size > 0) throw new Error(`${pending.size} posts did not reach every feed within 30 s`);
    const counts = await rt.db
      .selectFrom("feed_entries")
      .select(["status_id", (eb) => eb.fn.countAll().as("n")])
      .where("status_id", "in", posted)
      .groupBy("status_id")
      .execute();
    // Every follower's feed, and the poster's own.
    const short = counts.filter((c) => Number(c.n) !== SEED.posterFollowers + 1).length + posted.length - counts.length;
    if (short > 0) throw new Error(`${short} posts are missing from some feeds`);
    log(
      `slowest posts: ${[...latencies]
        .sort((a, b) => b - a)
        .slice(0, 5)
        .map((l) => l.toFixed(1))
        .join(", ")} ms`,
    );
    return {
      dialect,
      home,
      homeUnlimited,
      post: {
        p50: Math.round(percentile(latencies, 50) * 10) / 10,
        p99: Math.round(percentile(latencies, 99) * 10) / 10,
        max: Math.round(Math.max(...latencies) * 10) / 10,
        fanoutMax: Math.max(...fanouts),
        fanoutP99: percentile(fanouts, 99),
      },
    };
  } finally {
    await stopRookery(server);
    await stopRookery(unlimited);
    await rt.close();
  }
}

await configureLogging("silent");
const results: Result[] = [];
log("baseline: node:http hello world…");
const hello = await baseline();

if (ONLY !== "postgres") {
  const sqliteDir = mkdtempSync(join(tmpdir(), "rookery-bench-"));
  try {
    results.push(await benchDialect("sqlite", `sqlite:${join(sqliteDir, "bench.sqlite")}`, sqliteDir));
  } finally {
    rmSync(sqliteDir, { recursive: true, force: true });
  }
}
for (const target of ONLY === "sqlite" ? [] : PG_TARGETS) {
  const pgDb = await postgresDatabase(target.admin);
  if (!pgDb) {
    log(`PostgreSQL not reachable at ${target.admin}: skipped`);
    continue;
  }
  const dir = mkdtempSync(join(tmpdir(), "rookery-bench-"));
  try {
    results.push(await benchDialect(target.label, pgDb.url, dir));
  } finally {
    await pgDb.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const lines = [
  `Home timeline: GET /api/v1/timelines/home?limit=20, ${CONNECTIONS} connections, ${DURATION} s per server in turns` +
    ` (${SEED.authors * SEED.statusesPerAuthor} statuses, reader follows ${SEED.readerFollows} of ${SEED.authors} authors)`,
  "",
  "Target: SQLite back at the earlier versions' 3,326-3,976 requests/s (hello world about 50,000-55,000 then), " +
    "p99 under 50 ms; PostgreSQL no slower than before the visibility module.",
  "",
  "| server | requests/s | p50 ms | p99 ms | errors |",
  "|---|---|---|---|---|",
  `| node:http hello world | ${hello.rps} | ${hello.p50} | ${hello.p99} | ${hello.errors} |`,
  ...results.flatMap((r) => [
    `| Rookery, ${r.dialect} | ${r.home.rps} | ${r.home.p50} | ${r.home.p99} | ${r.home.errors} |`,
    `| Rookery, ${r.dialect}, rate limits off | ${r.homeUnlimited.rps} | ${r.homeUnlimited.p50} | ${r.homeUnlimited.p99} | ${r.homeUnlimited.errors} |`,
  ]),
  "",
  `Posting: POST /api/v1/statuses by an account with ${SEED.posterFollowers} local followers, ${POSTS} posts at ${POSTS_PER_SECOND}/s`,
  "",
  "| database | p50 ms | p99 ms | max ms | in every follower's feed after (p99 / max) |",
  "|---|---|---|---|---|",
  ...results.map(
    (r) =>
      `| ${r.dialect} | ${r.post.p50} | ${r.post.p99} | ${r.post.max} | ${r.post.fanoutP99} ms / ${r.post.fanoutMax} ms |`,
  ),
];
console.log(lines.join("\n"));
