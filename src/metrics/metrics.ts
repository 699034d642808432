// Prometheus metrics of one runtime, that is of one thread (web threads each have theirs; the main
// thread's listener gathers them, listener.ts). Made only when METRICS_PORT is set: with metrics
// off, Runtime.metrics is null, prom-client is never loaded, and each place that counts pays one
// null check. What a request or a job does costs a few additions here; whatever can be read when
// scraped (queue depth, pool use, caches, memory) is read then.
import { monitorEventLoopDelay } from "node:perf_hooks";
import { getHeapStatistics } from "node:v8";
import { isMainThread, threadId } from "node:worker_threads";
import type { Context } from "hono";
import { Counter, collectDefaultMetrics, Histogram, Registry } from "prom-client";
import type { Connection } from "../db/index.ts";
import { CheckpointStat, takeWriteLockStats } from "../db/sqlite_writes.ts";
import { routeOf } from "../http/route.ts";
import type { Runtime } from "../runtime.ts";
import { computedCacheStats } from "../services/cache.ts";
import { type JobTypeHealth, jobQueueHealth } from "../services/operations/job_queue.ts";
import { viewCacheStats } from "../services/view_caches.ts";
import { openStreams } from "../streaming/hub.ts";
import { computed, type MetricPoint, register } from "./custom.ts";
import { RequestHistogram } from "./request_histogram.ts";

export interface Metrics {
  readonly registry: Registry;
  /** An answered request (called after the app's middleware and handler ran). */
  request(c: Context, seconds: number): void;
  /** A job that threw: to be tried again, or not (its attempts are used up). */
  jobFailed(type: string, dead: boolean): void;
  /** A delivery to a remote inbox: delivered, failed (to be tried again), or refused by the server (4xx). */
  delivery(host: string, outcome: Outcome): void;
  close(): void;
}

type Outcome = "delivered" | "failed" | "refused";
const OUTCOMES: Outcome[] = ["delivered", "failed", "refused"];

/** Remote servers shown in the delivery counts: the busiest, so that the series stay few. */
const TOP_HOSTS = 20;
/** Servers remembered per thread; past this the quieter half is forgotten. */
const MAX_HOSTS = 10_000;

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
const INBOXES = new Set(["/inbox", "/users/:identifier/inbox"]);

/** What became of an activity posted to an inbox, from Fedify's answer. */
function inboxOutcome(status: number): string {
  if (status >= 200 && status < 300) return "accepted";
  switch (status) {
    case 400:
    case 422:
      return "invalid";
    case 401:
      return "signature";
    case 403:
      return "refused";
    case 413:
      return "too_large";
    case 429:
      return "rate_limited";
    case 503:
      return "unavailable";
    default:
      return "other";
  }
}

const thread = isMainThread ? "main" : String(threadId);
const seconds = (ms: number) => ms / 1000;

/**
 * `connection.checkpointStats`: the figures of SQLite's checkpoint thread, when this thread's
 * connection has one (CheckpointStat).
 */
export function createMetrics(
  rt: Runtime,
  connection: Pick<Connection, "usage" | "waits" | "checkpointStats">,
): Metrics {
  const usage = connection.usage;
  const checkpoints = connection.checkpointStats ?? null;
  const registry = new Registry();
  const requests = new RequestHistogram();
  register(registry, requests);
  const inbox = new Counter({
    name: "rookery_inbox_activities_total",
    help: "Activities posted to the inboxes, by outcome (accepted, or why not)",
    labelNames: ["outcome"],
    registers: [registry],
  });
  const jobFailures = new Counter({
    name: "rookery_job_failures_total",
    help: "Jobs that failed, by type, and whether they are tried again (retry) or not (dead)",
    labelNames: ["type", "outcome"],
    registers: [registry],
  });
  const deliveries = new Map<string, number[]>();
  computed(
    registry,
    "rookery_deliveries_total",
    `Deliveries to the ${TOP_HOSTS} busiest remote servers, by outcome`,
    "counter",
    () =>
      [...deliveries]
        .map(([host, counts]) => ({ host, counts, total: counts.reduce((a, b) => a + b, 0) }))
        .sort((a, b) => b.total - a.total)
        .slice(0, TOP_HOSTS)
        .flatMap(({ host, counts }) =>
          OUTCOMES.map((outcome, i) => ({ labels: { host, outcome }, value: counts[i]! })),
        ),
  );

  computed(registry, "rookery_streaming_connections", "Open streaming connections (WebSocket and SSE)", "gauge", () => [
    { labels: {}, value: openStreams(rt) },
  ]);
  computed(
    registry,
    "rookery_cache_lookups_total",
    "Lookups in the in-memory caches, by cache and result",
    "counter",
    () =>
      [...viewCacheStats(rt), computedCacheStats(rt)].flatMap(({ name, hits, misses }) => [
        { labels: { cache: name, result: "hit" }, value: hits },
        { labels: { cache: name, result: "miss" }, value: misses },
      ]),
  );
  // SQLite's waiting writers are counted for the whole process: the main thread alone tells them.
  if (rt.dialect === "postgres" || isMainThread) {
    computed(
      registry,
      "rookery_db_connections",
      "Database connections, by state (PostgreSQL's pools; SQLite's one per thread)",
      "gauge",
      () => {
        const now = usage();
        return [
          { labels: { state: "open" }, value: now.total },
          { labels: { state: "idle" }, value: now.idle },
          { labels: { state: "in_use" }, value: now.inUse },
        ];
      },
    );
    computed(
      registry,
      "rookery_db_waiting",
      "Requests and jobs waiting for a database connection (SQLite: for the write lock)",
      "gauge",
      () => [{ labels: {}, value: usage().waiting }],
    );
  }

  // Every thread's own connections (PostgreSQL: its pool; SQLite: its one connection, lent in turn).
  const waits = new Histogram({
    name: "rookery_db_connection_wait_seconds",
    help: "Time a query or transaction waited for a database connection",
    buckets: [0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  connection.waits.observe = (took) => waits.observe(took);
  if (rt.dialect === "sqlite") sqliteMetrics(registry, checkpoints);

  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  computed(
    registry,
    "rookery_event_loop_delay_seconds",
    "Event loop delay of each thread since the last scrape",
    "gauge",
    () => {
      const points = [0.5, 0.99].map((quantile) => ({
        labels: { thread, quantile },
        value: seconds(loop.percentile(quantile * 100) / 1e6),
      }));
      points.push({ labels: { thread, quantile: 1 }, value: seconds(loop.max / 1e6) });
      loop.reset();
      return points;
    },
  );
  computed(
    registry,
    "rookery_thread_heap_bytes",
    "JavaScript heap of each thread, by state (used, total, limit)",
    "gauge",
    () => {
      const heap = getHeapStatistics();
      return [
        { labels: { thread, state: "used" }, value: heap.used_heap_size },
        { labels: { thread, state: "total" }, value: heap.total_heap_size },
        { labels: { thread, state: "limit" }, value: heap.heap_size_limit },
      ];
    },
  );

  if (isMainThread) {
    // The process's own: CPU, resident memory, file descriptors, garbage collection, the main thread's heap.
    collectDefaultMetrics({ register: registry });
    const jobs = jobGauges(rt);
    const gauge = (name: string, help: string, key: Exclude<keyof JobTypeHealth, "type">) =>
      computed(registry, name, help, "gauge", async () =>
        (await jobs()).map((row) => ({ labels: { type: row.type }, value: row[key] })),
      );
    gauge("rookery_jobs_waiting", "Jobs waiting, by type (due now or later)", "waiting");
    gauge("rookery_jobs_due", "Jobs due now and not yet done, by type", "due");
    gauge(
      "rookery_jobs_oldest_due_seconds",
      "How long the longest-waiting due job of each type has waited",
      "oldestDueSeconds",
    );
    gauge("rookery_jobs_retrying", "Waiting jobs that failed before and will be tried again, by type", "retrying");
    gauge("rookery_jobs_dead", "Jobs that used up their attempts, kept for inspection, by type", "dead");
  }

  return {
    registry,
    request(c, took) {
      const route = routeOf(c);
      const method = METHODS.has(c.req.method) ? c.req.method : "OTHER";
      const status = c.res.status;
      requests.observe(route, method, status, took);
      if (method === "POST" && INBOXES.has(route)) inbox.inc({ outcome: inboxOutcome(status) });
    },
    jobFailed(type, dead) {
      jobFailures.inc({ type, outcome: dead ? "dead" : "retry" });
    },
    delivery(host, outcome) {
      let counts = deliveries.get(host);
      if (!counts) {
        if (deliveries.size >= MAX_HOSTS) forgetQuieterHalf(deliveries);
        counts = [0, 0, 0];
        deliveries.set(host, counts);
      }
      counts[OUTCOMES.indexOf(outcome)]!++;
    },
    close() {
      connection.waits.observe = null;
      loop.disable();
      registry.clear();
    },
  };
}

/**
 * SQLite's writers: each thread's waits for the process's write lock and its longest hold, and the
 * checkpoints, which keep writers out while they restart the log: what to look at when requests that
 * write (or share a thread with jobs that do) slow down.
 */
function sqliteMetrics(registry: Registry, checkpoints: Float64Array | null): void {
  let lock = takeWriteLockStats();
  const read = () => {
    lock = takeWriteLockStats();
    return lock;
  };
  computed(
    registry,
    "rookery_sqlite_write_lock_waits_total",
    "Writes that waited for another's, by thread",
    "counter",
    () => [{ labels: { thread }, value: read().waits }],
  );
  computed(
    registry,
    "rookery_sqlite_write_lock_wait_seconds_total",
    "Time writes waited for the write lock, by thread",
    "counter",
    () => [{ labels: { thread }, value: seconds(lock.waitedMs) }],
  );
  computed(
    registry,
    "rookery_sqlite_write_lock_longest_seconds",
    "The longest wait for the write lock and the longest hold of it since the last scrape, by thread",
    "gauge",
    () => [
      { labels: { thread, what: "wait" }, value: seconds(lock.longestWaitMs) },
      { labels: { thread, what: "hold" }, value: seconds(lock.longestHoldMs) },
    ],
    "max",
  );
  if (!checkpoints) return;
  const c = checkpoints;
  const modes = [
    ["passive", CheckpointStat.Passives, CheckpointStat.PassiveMs, CheckpointStat.LongestPassiveMs],
    ["restart", CheckpointStat.Restarts, CheckpointStat.RestartMs, CheckpointStat.LongestRestartMs],
  ] as const;
  computed(registry, "rookery_sqlite_checkpoints_total", "WAL checkpoints, by mode", "counter", () =>
    modes.map(([mode, n]) => ({ labels: { mode }, value: c[n]! })),
  );
  computed(
    registry,
    "rookery_sqlite_checkpoint_seconds_total",
    "Time spent in WAL checkpoints, by mode",
    "counter",
    () => modes.map(([mode, , ms]) => ({ labels: { mode }, value: seconds(c[ms]!) })),
  );
  computed(
    registry,
    "rookery_sqlite_checkpoint_longest_seconds",
    "The longest checkpoint of each mode since the last scrape, and the longest wait for the writer before a restart",
    "gauge",
    () => {
      const points: MetricPoint[] = modes.map(([mode, , , longest]) => ({
        labels: { mode },
        value: seconds(c[longest]!),
      }));
      points.push({ labels: { mode: "restart_wait" }, value: seconds(c[CheckpointStat.LongestRestartWaitMs]!) });
      for (const i of [
        CheckpointStat.LongestPassiveMs,
        CheckpointStat.LongestRestartMs,
        CheckpointStat.LongestRestartWaitMs,
      ])
        c[i] = 0;
      return points;
    },
  );
  computed(registry, "rookery_sqlite_log_bytes", "The WAL's length at the last checkpoint", "gauge", () => [
    { labels: {}, value: c[CheckpointStat.LogPages]! * 4096 },
  ]);
}

function forgetQuieterHalf(deliveries: Map<string, number[]>): void {
  const totals = [...deliveries].map(([host, counts]) => [host, counts.reduce((a, b) => a + b, 0)] as const);
  totals.sort((a, b) => a[1] - b[1]);
  for (const [host] of totals.slice(0, totals.length / 2)) deliveries.delete(host);
}

/** The job queue's counts by type, read once per scrape by every gauge that shows them. */
function jobGauges(rt: Runtime): () => Promise<JobTypeHealth[]> {
  let pending: Promise<JobTypeHealth[]> | null = null;
  return () => {
    pending ??= jobQueueHealth(rt).finally(() => {
      // Read again at the next scrape (the gauges of one scrape start together).
      setImmediate(() => {
        pending = null;
      });
    });
    return pending;
  };
}
