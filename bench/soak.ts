// Memory (`npm run bench:soak`): the server's resident memory with the default configuration, on
// the timeline benchmark's data (200,000 statuses), on SQLite and (when reachable) PostgreSQL:
//  1. right after start;
//  2. after the home-timeline benchmark (50 connections for 20 s);
//  3. each minute of a steady load for BENCH_SOAK_MINUTES (30 by default): the home timeline, the
//     instance and the public timeline read at 300 requests/s in all, and a post a second.
// Growth over the soak is the last minute against the second: in the first, the threads' heaps are
// still growing into the load (at a load average of 37, 311 MB against 336–344 after). The render
// caches fill up to their bound (RENDER_CACHE_ENTRIES) with every status a thread renders, so a
// server's memory climbs until they are full: at a post a second that takes over an hour. Unless BENCH_SOAK_COLD is set,
// the soak first reads enough of the public timeline to fill every thread's caches, so that it
// measures a server in its steady state, where any growth left is a leak.
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import pg from "pg";
import { loadConfig } from "../src/config.ts";
import { configureLogging } from "../src/log.ts";
import { createRuntime } from "../src/runtime.ts";
import { freePort, load, log, memoryKb, postgresDatabase, serverEnv, startRookery, stopRookery } from "./lib.ts";
import { seed } from "./seed.ts";

const MINUTES = Number(process.env.BENCH_SOAK_MINUTES ?? 30);
const PG_ADMIN = process.env.BENCH_PG_URL ?? "postgres://root@127.0.0.1:5432/postgres";

interface Soak {
  label: string;
  started: number;
  afterHome: number;
  homeRps: number;
  minutes: number[];
}

async function soak(label: string, databaseUrl: string, dataDir: string): Promise<Soak> {
  const port = await freePort();
  const env = { ...serverEnv(port, dataDir, databaseUrl), RATE_LIMITS: "off" };
  log(`${label}: seeding…`);
  const rt = await createRuntime(loadConfig(env), { sqliteCheckpoints: false });
  const seeded = await seed(rt);
  await rt.close();
  let server: ChildProcess | null = null;
  try {
    server = await startRookery(env, port);
    await new Promise((r) => setTimeout(r, 2000));
    const started = Math.round(memoryKb(server.pid!, "VmRSS") / 1024);
    const base = `http://127.0.0.1:${port}`;
    const reader = { authorization: `Bearer ${seeded.readerToken}` };
    const home = await load(`${base}/api/v1/timelines/home?limit=20`, reader);
    const afterHome = Math.round(memoryKb(server.pid!, "VmRSS") / 1024);
    log(`${label}: ${started} MB after start, ${afterHome} MB after the home timeline (${home.rps} requests/s)`);

    if (!process.env.BENCH_SOAK_COLD) {
      await fillCaches(base, seeded.readerToken);
      log(`${label}: ${Math.round(memoryKb(server.pid!, "VmRSS") / 1024)} MB with the render caches full`);
    }

    const minutes: number[] = [];
    const steady = autocannon({
      url: base,
      connections: 10,
      overallRate: 300,
      duration: MINUTES * 60,
      requests: [
        { method: "GET", path: "/api/v1/timelines/home?limit=20", headers: reader },
        { method: "GET", path: "/api/v1/timelines/public?local=true&limit=20" },
        { method: "GET", path: "/api/v1/instance" },
      ],
    });
    let posted = 0;
    const poster = setInterval(() => {
      posted++;
      void fetch(`${base}/api/v1/statuses`, {
        method: "POST",
        headers: { authorization: `Bearer ${seeded.posterToken}`, "content-type": "application/json" },
        body: JSON.stringify({ status: `Soak post ${posted}` }),
      }).catch(() => {});
    }, 1000);
    // A post a second fills 10,000 feeds: PostgreSQL's statistics of the feeds, taken by the seed
    // when one feed held every entry, must follow, or its plans go wrong (a home page read 3.3
    // million entries of other feeds: 3 s). Autovacuum analyses as tables change; where it is off
    // (as on the machines that run the tests), the soak does what it would, every 20 s.
    const analyse = databaseUrl.startsWith("postgres") ? new pg.Client({ connectionString: databaseUrl }) : null;
    await analyse?.connect();
    let analysing: Promise<unknown> | undefined;
    const analyser = setInterval(() => {
      analysing = analyse?.query("analyze").catch((error) => log(`${label}: analyze failed: ${error}`));
    }, 20_000);
    const sampler = setInterval(() => {
      minutes.push(Math.round(memoryKb(server!.pid!, "VmRSS") / 1024));
      log(`${label}: minute ${minutes.length}: ${minutes.at(-1)} MB`);
    }, 60_000);
    const result = await steady;
    clearInterval(poster);
    clearInterval(sampler);
    clearInterval(analyser);
    await analysing;
    await analyse?.end();
    log(
      `${label}: the steady load's answers: p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, ${result.requests.total} in all`,
    );
    if (result.non2xx + result.errors > 0) {
      const codes = Object.entries(result.statusCodeStats ?? {}).filter(([code]) => !code.startsWith("2"));
      log(
        `${label}: ${result.non2xx} non-2xx answers (${JSON.stringify(Object.fromEntries(codes))}), ${result.errors} errors (${result.timeouts} timeouts)`,
      );
    }
    return { label, started, afterHome, homeRps: home.rps, minutes };
  } finally {
    await stopRookery(server);
  }
}

/**
 * Reads the public timeline from its newest status back through twice as many statuses as a
 * thread's render cache holds, over many more connections than the server has threads:
 * every thread then renders twice its bound of statuses, and their authors.
 */
async function fillCaches(base: string, token: string): Promise<void> {
  const entries = Number(process.env.RENDER_CACHE_ENTRIES ?? 5000);
  const pages = Math.ceil((2 * entries) / 40);
  const headers = { authorization: `Bearer ${token}` };
  let url = `${base}/api/v1/timelines/public?limit=40`;
  for (let page = 0; page < pages; page++) {
    // Each page is asked for by 16 clients at once: the kernel spreads their connections over the
    // threads, and every thread reads it.
    const answers = await Promise.all(
      Array.from({ length: 16 }, () => fetch(url, { headers }).then((r) => r.json() as Promise<{ id: string }[]>)),
    );
    const last = answers[0].at(-1);
    if (!last) break;
    url = `${base}/api/v1/timelines/public?limit=40&max_id=${last.id}`;
  }
}

await configureLogging("silent");
const results: Soak[] = [];
if (process.env.BENCH_ONLY !== "postgres") {
  const dir = mkdtempSync(join(tmpdir(), "rookery-soak-"));
  try {
    results.push(await soak("SQLite", `sqlite:${join(dir, "bench.sqlite")}`, dir));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
if (process.env.BENCH_ONLY !== "sqlite") {
  const db = await postgresDatabase(PG_ADMIN);
  const dir = mkdtempSync(join(tmpdir(), "rookery-soak-"));
  try {
    if (db) results.push(await soak("PostgreSQL", db.url, dir));
    else log(`PostgreSQL not reachable at ${PG_ADMIN}: skipped`);
  } finally {
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}
console.log(
  [
    `Resident memory, default configuration, MB (steady load for ${MINUTES} min)`,
    "Targets: at most 150 MB after start, at most 300 MB after the home benchmark, no growth over the soak.",
    "",
    "| database | after start | after the home benchmark (req/s) | first minute | second minute | last minute | highest | growth |",
    "|---|---|---|---|---|---|---|---|",
    ...results.map((r) => {
      const [first = 0, second = first] = r.minutes;
      const last = r.minutes.at(-1) ?? 0;
      return `| ${r.label} | ${r.started} | ${r.afterHome} (${r.homeRps}) | ${first} | ${second} | ${last} | ${Math.max(...r.minutes)} | ${last - second} |`;
    }),
    "",
    ...results.map((r) => `${r.label}, each minute: ${r.minutes.join(", ")}`),
  ].join("\n"),
);
