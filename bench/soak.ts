// Memory (`npm run bench:soak`): the server's resident memory with the default configuration, on
// the timeline benchmark's data (200,000 statuses), on SQLite and (when reachable) PostgreSQL:
//  1. right after start;
//  2. after the home-timeline benchmark (50 connections for 20 s);
//  3. each minute of a steady load for `--minutes N` (BENCH_SOAK_MINUTES; 30 by default): the home
//     and local timelines, notifications and the instance read at 300 requests/s in all, beside
//     the rest of a day's traffic (bench/soak_traffic.ts: a post a second by the account with 10,000
//     followers, favourites, searches, streaming clients coming and going, signed deliveries from
//     another server, photo uploads); for each minute the reads' latency and timeouts, the others',
//     and from the server's metrics (METRICS_PORT) the longest event-loop delay of its threads and,
//     on SQLite, the longest wait for the write lock and hold of it, the longest checkpoints, and
//     the WAL's size. `--only sqlite|postgres` (BENCH_ONLY) runs one database.
// Growth over the soak is the last minute against the second: in the first, the threads' heaps are
// still growing into the load (at a load average of 37, 311 MB against 336–344 after). The render
// caches fill up to their bound (RENDER_CACHE_ENTRIES) with every status a thread renders, so a
// server's memory climbs until they are full: at a post a second that takes over an hour. Unless BENCH_SOAK_COLD is set,
// the soak first reads enough of the public timeline to fill every thread's caches, so that it
// measures a server in its steady state, where any growth left is a leak.
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import pg from "pg";
import { loadConfig } from "../src/config.ts";
import { openDatabase } from "../src/db/index.ts";
import { configureLogging } from "../src/log.ts";
import { createRuntime } from "../src/runtime.ts";
import { createApplication } from "../src/services/auth/apps.ts";
import { startRemoteServer } from "../test/remote_actors.ts";
import { makeAlice, seedFollows } from "./ingest.ts";
import {
  benchOptions,
  freePort,
  load,
  log,
  memoryKb,
  postgresDatabase,
  type Sample,
  scrape,
  serverEnv,
  startRookery,
  stopRookery,
} from "./lib.ts";
import { seed } from "./seed.ts";
import { startTraffic, type TrafficMinute } from "./soak_traffic.ts";

const options = benchOptions({ minutes: process.env.BENCH_SOAK_MINUTES ?? "30", only: process.env.BENCH_ONLY ?? "" });
const MINUTES = Number(options.minutes);
const PG_ADMIN = process.env.BENCH_PG_URL ?? "postgres://root@127.0.0.1:5432/postgres";

/** One minute of the steady load: the server's memory, the reads' latency, and where writers waited. */
interface Minute {
  rss: number;
  p50: number;
  p99: number;
  max: number;
  requests: number;
  /** Requests without an answer within autocannon's 10 s, and other errors. */
  timeouts: number;
  errors: number;
  /** The longest event-loop delay of any thread, in ms. */
  loopMax: number;
  /** SQLite: the longest wait for the write lock and the longest hold of it (any thread), in ms. */
  lockWait: number;
  lockHold: number;
  /** SQLite: the longest checkpoint of each kind, and the longest wait for the writer before a restart, in ms. */
  passive: number;
  restart: number;
  restartWait: number;
  /** SQLite: the WAL file's size, in MB. */
  walMb: number;
  loadAverage: number;
  traffic: TrafficMinute;
}

interface Soak {
  label: string;
  started: number;
  afterHome: number;
  homeRps: number;
  minutes: Minute[];
}

/** The largest value of `name`'s series (those whose labels contain `having`), in ms. */
const longestMs = (series: Sample[], having = "") =>
  Math.round(Math.max(0, ...series.filter((s) => s.labels.includes(having)).map((s) => s.value)) * 1000);

async function soak(label: string, databaseUrl: string, dataDir: string): Promise<Soak> {
  const port = await freePort();
  const metricsPort = await freePort();
  const env = {
    ...serverEnv(port, dataDir, databaseUrl),
    RATE_LIMITS: "off",
    METRICS_PORT: String(metricsPort),
    // The stand-in server that delivers to the inbox is on loopback.
    ALLOW_PRIVATE_ADDRESSES: "true",
  };
  const wal = databaseUrl.startsWith("sqlite:") ? `${databaseUrl.slice("sqlite:".length)}-wal` : null;
  log(`${label}: seeding…`);
  const rt = await createRuntime(loadConfig(env), { sqliteCheckpoints: false });
  const seeded = await seed(rt);
  // alice reads her notifications (the remote actors' follows) and is followed by the actors that deliver.
  const app = await createApplication(rt, {
    name: "soak",
    redirectUris: ["urn:ietf:wg:oauth:2.0:oob"],
    scopes: ["read", "write"],
  });
  const aliceToken = await makeAlice(rt, app.id);
  await rt.close();
  let server: ChildProcess | null = null;
  const remote = await startRemoteServer();
  const conn = await openDatabase(databaseUrl, { poolSize: 1 });
  try {
    server = await startRookery(env, port);
    await new Promise((r) => setTimeout(r, 2000));
    const started = Math.round(memoryKb(server.pid!, "VmRSS") / 1024);
    const base = `http://127.0.0.1:${port}`;
    const reader = { authorization: `Bearer ${seeded.readerToken}` };
    const home = await load(`${base}/api/v1/timelines/home?limit=20`, reader);
    const afterHome = Math.round(memoryKb(server.pid!, "VmRSS") / 1024);
    log(`${label}: ${started} MB after start, ${afterHome} MB after the home timeline (${home.rps} requests/s)`);
    const actors = Array.from({ length: 50 }, (_, i) => `soak${i}`);
    await seedFollows(base, conn.db, aliceToken, remote, actors);

    if (!process.env.BENCH_SOAK_COLD) {
      await fillCaches(base, seeded.readerToken);
      log(`${label}: ${Math.round(memoryKb(server.pid!, "VmRSS") / 1024)} MB with the render caches full`);
    }

    const minutes: Minute[] = [];
    // Started afresh each minute, so that each minute's latency is its own.
    const minuteOfLoad = () =>
      autocannon({
        url: base,
        connections: 10,
        overallRate: 300,
        duration: 60,
        requests: [
          { method: "GET", path: "/api/v1/timelines/home?limit=20", headers: reader },
          { method: "GET", path: "/api/v1/timelines/public?local=true&limit=20" },
          { method: "GET", path: "/api/v1/instance" },
          { method: "GET", path: "/api/v1/notifications?limit=20", headers: { authorization: `Bearer ${aliceToken}` } },
        ],
      });
    const traffic = await startTraffic(
      base,
      { reader: seeded.readerToken, poster: seeded.posterToken },
      { server: remote, names: actors, inbox: `${base}/inbox` },
    );
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
    await scrape(metricsPort); // Starts the metrics' since-the-last-scrape figures afresh.
    for (let i = 0; i < MINUTES; i++) {
      const r = await minuteOfLoad();
      const metric = await scrape(metricsPort);
      const checkpoints = metric("rookery_sqlite_checkpoint_longest_seconds");
      const lock = metric("rookery_sqlite_write_lock_longest_seconds");
      const m: Minute = {
        rss: Math.round(memoryKb(server.pid!, "VmRSS") / 1024),
        p50: r.latency.p50,
        p99: r.latency.p99,
        max: r.latency.max,
        requests: r.requests.total,
        timeouts: r.timeouts,
        errors: r.non2xx + r.errors - r.timeouts,
        loopMax: longestMs(metric("rookery_event_loop_delay_seconds"), 'quantile="1"'),
        lockWait: longestMs(lock, 'what="wait"'),
        lockHold: longestMs(lock, 'what="hold"'),
        passive: longestMs(checkpoints, 'mode="passive"'),
        restart: longestMs(checkpoints, 'mode="restart"'),
        restartWait: longestMs(checkpoints, 'mode="restart_wait"'),
        walMb: wal ? Math.round(statSync(wal, { throwIfNoEntry: false })?.size ?? 0) / 2 ** 20 : 0,
        loadAverage: loadavg()[0],
        traffic: traffic.take(),
      };
      minutes.push(m);
      const sqlite = wal
        ? `write lock wait ≤ ${m.lockWait} ms, hold ≤ ${m.lockHold} ms; ` +
          `checkpoints ≤ ${m.passive} ms (passive), ${m.restart} ms (restart, after waiting ${m.restartWait} ms); ` +
          `WAL ${m.walMb.toFixed(0)} MB; `
        : "";
      log(
        `${label}: minute ${i + 1}: ${m.rss} MB; reads p50 ${m.p50} / p99 ${m.p99} / max ${m.max} ms, ${m.timeouts} timeouts, ${m.errors} errors; ` +
          `event loop ≤ ${m.loopMax} ms; ${sqlite}load ${m.loadAverage.toFixed(1)}; ${describe(m.traffic)}`,
      );
    }
    await traffic.stop();
    clearInterval(analyser);
    await analysing;
    await analyse?.end();
    return { label, started, afterHome, homeRps: home.rps, minutes };
  } finally {
    await stopRookery(server);
    await conn.close();
    await remote.close();
  }
}

function describe(t: TrafficMinute): string {
  return (
    `${t.posts} posts, ${t.favourites} favourites; searches p50 ${t.searches.p50} / p99 ${t.searches.p99} ms; ` +
    `${t.inbox.sent} deliveries (${t.inbox.refused} refused); ${t.uploads.count} uploads (answered p99 ` +
    `${t.uploads.answeredP99} ms, processed ≤ ${t.uploads.processedMax} ms); streams ${t.streams.opened} opened, ` +
    `${t.streams.closed} closed, ${t.streams.events} events; ${t.errors} errors`
  );
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
if (options.only !== "postgres") {
  const dir = mkdtempSync(join(tmpdir(), "rookery-soak-"));
  try {
    results.push(await soak("SQLite", `sqlite:${join(dir, "bench.sqlite")}`, dir));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
if (options.only !== "sqlite") {
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
/** RSS from the fifth minute on (or the second, in a shorter soak): its spread, in % of the lowest. */
function spread(minutes: Minute[]): { from: number; percent: number } {
  const from = minutes.length >= 6 ? 5 : Math.min(2, minutes.length);
  const rss = minutes.slice(from - 1).map((m) => m.rss);
  const low = Math.min(...rss);
  return { from, percent: Math.round(((Math.max(...rss) - low) / low) * 1000) / 10 };
}

const all = (r: Soak, pick: (m: Minute) => number) => r.minutes.map(pick);
console.log(
  [
    `Resident memory and the reads' latency, default configuration (steady load for ${MINUTES} min: 300 reads/s beside a post a second to 10,000 followers, 2 favourites, 2 searches, 10 deliveries and 5 streams replaced a second, a photo every 6 s)`,
    "Targets: at most 150 MB after start, at most 300 MB after the home benchmark, RSS flat within 10% after the fifth minute, reads p99 under 150 ms, no timeouts.",
    "",
    "| database | after start | after the home benchmark (req/s) | RSS first → last minute (highest) | RSS spread from minute n | reads p99 (worst minute) | timeouts | searches p99 (worst minute) | uploads processed (slowest) | deliveries refused, other errors | longest event-loop delay | WAL (largest) |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ...results.map((r) => {
      const s = spread(r.minutes);
      const sum = (pick: (m: Minute) => number) => all(r, pick).reduce((a, b) => a + b, 0);
      const max = (pick: (m: Minute) => number) => Math.max(...all(r, pick));
      return `| ${r.label} | ${r.started} MB | ${r.afterHome} MB (${r.homeRps}) | ${r.minutes[0]?.rss} → ${r.minutes.at(-1)?.rss} MB (${max((m) => m.rss)}) | ${s.percent}% from minute ${s.from} | ${max((m) => m.p99)} ms | ${sum((m) => m.timeouts)} | ${max((m) => m.traffic.searches.p99)} ms | ${max((m) => m.traffic.uploads.processedMax)} ms | ${sum((m) => m.traffic.inbox.refused)}, ${sum((m) => m.errors + m.traffic.errors)} | ${max((m) => m.loopMax)} ms | ${r.label === "SQLite" ? `${max((m) => m.walMb).toFixed(0)} MB` : "-"} |`;
    }),
    "",
    ...results.flatMap((r) => [
      `${r.label}, each minute: RSS ${all(r, (m) => m.rss).join(", ")} MB`,
      `  reads p99 ${all(r, (m) => m.p99).join(", ")} ms; timeouts ${all(r, (m) => m.timeouts).join(", ")}`,
      `  searches p99 ${all(r, (m) => m.traffic.searches.p99).join(", ")} ms; stream events ${all(r, (m) => m.traffic.streams.events).join(", ")}`,
      ...(r.label === "SQLite"
        ? [
            `  longest write-lock wait ${all(r, (m) => m.lockWait).join(", ")} ms; hold ${all(r, (m) => m.lockHold).join(", ")} ms`,
            `  longest restart checkpoint ${all(r, (m) => m.restart).join(", ")} ms (waiting ${all(r, (m) => m.restartWait).join(", ")} ms first); passive ${all(r, (m) => m.passive).join(", ")} ms`,
            `  WAL ${all(r, (m) => m.walMb)
              .map((w) => w.toFixed(0))
              .join(", ")} MB`,
          ]
        : []),
      `  longest event-loop delay ${all(r, (m) => m.loopMax).join(", ")} ms; load average ${r.minutes.map((m) => m.loadAverage.toFixed(1)).join(", ")}`,
    ]),
  ].join("\n"),
);
