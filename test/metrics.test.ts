// Prometheus metrics (METRICS_PORT) of a server with two web threads: one scrape adds up what every
// thread counted, per-thread values carry a `thread` label, and the listener wants its token.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ConfigError, loadConfig } from "../src/config.ts";
import { deliver } from "../src/federation/delivery.ts";
import { type Running, start } from "../src/server.ts";
import { createLocalUser } from "../src/services/accounts/accounts.ts";
import { createApplication } from "../src/services/auth/apps.ts";
import { issueToken } from "../src/services/auth/tokens.ts";
import { adminQuery, startServer, TEST_DATABASE_URL } from "./rig.ts";

const METRICS_TOKEN = randomBytes(16).toString("hex");
let running: Running;
let dataDir: string;
let schema: string | undefined;
let token: string;

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "rookery-metrics-"));
  if (TEST_DATABASE_URL) {
    schema = `t_${randomBytes(6).toString("hex")}`;
    await adminQuery(`CREATE SCHEMA ${schema}`);
  }
  const config = loadConfig({
    LOCAL_DOMAIN: "metrics.test",
    PORT: "0",
    WEB_THREADS: "2",
    DATA_DIR: dataDir,
    DATABASE_URL: TEST_DATABASE_URL ?? `sqlite:${join(dataDir, "rookery.sqlite")}`,
    SECRET_KEY_BASE: randomBytes(32).toString("hex"),
    LOG_LEVEL: "silent",
    METRICS_PORT: "0",
    METRICS_TOKEN,
    ALLOW_PRIVATE_ADDRESSES: "true",
  });
  running = await start(config, { web: true, worker: true }, { schema, poolSize: 4 });
  const app = await createApplication(running.rt, {
    name: "Metrics",
    redirectUris: ["urn:ietf:wg:oauth:2.0:oob"],
    scopes: ["read", "write"],
  });
  const user = await createLocalUser(running.rt, {
    username: "measured",
    email: "measured@example.test",
    password: "correct horse battery staple",
  });
  token = (await issueToken(running.rt, { applicationId: app.id, userId: user.userId, scopes: ["read", "write"] }))
    .token;
});

after(async () => {
  await running.stop();
  if (schema) await adminQuery(`DROP SCHEMA ${schema} CASCADE`);
  rmSync(dataDir, { recursive: true, force: true });
});

/** One request on a connection of its own, so that the kernel may hand it to either thread. */
function call(method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: running.port, method, path, agent: false, headers }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode!));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const scrape = (headers: Record<string, string> = { authorization: `Bearer ${METRICS_TOKEN}` }, path = "/metrics") =>
  fetch(`http://127.0.0.1:${running.metricsPort}${path}`, { headers });

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    const m = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[k!] = v!;
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

/** The value of the one sample named `name` whose labels include `labels` (undefined if none). */
function sampleValue(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  assert.ok(found.length <= 1, `${name} ${JSON.stringify(labels)}: ${found.length} samples`);
  return found[0]?.value;
}

async function metrics(): Promise<Sample[]> {
  const res = await scrape();
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  return parse(await res.text());
}

async function until(check: (samples: Sample[]) => boolean): Promise<Sample[]> {
  for (;;) {
    const samples = await metrics();
    if (check(samples)) return samples;
    await new Promise((r) => setTimeout(r, 100));
  }
}

test("requests through both threads are counted once, by route pattern, method and status class", async () => {
  const auth = { authorization: `Bearer ${token}` };
  const statuses = await Promise.all(
    Array.from({ length: 12 }, () => call("GET", "/api/v1/timelines/home", undefined, auth)),
  );
  assert.deepEqual(new Set(statuses), new Set([200]));
  assert.equal(await call("GET", "/api/v1/statuses/123456", undefined, auth), 404);
  assert.equal(await call("GET", "/api/v1/timelines/home"), 401);

  const samples = await metrics();
  const home = { route: "/api/v1/timelines/home", method: "GET" };
  assert.equal(sampleValue(samples, "rookery_http_request_duration_seconds_count", { ...home, status: "2xx" }), 12);
  assert.equal(
    sampleValue(samples, "rookery_http_request_duration_seconds_bucket", { ...home, status: "2xx", le: "+Inf" }),
    12,
  );
  assert.equal(sampleValue(samples, "rookery_http_request_duration_seconds_count", { ...home, status: "4xx" }), 1);
  const sum = sampleValue(samples, "rookery_http_request_duration_seconds_sum", { ...home, status: "2xx" })!;
  assert.ok(sum > 0 && sum < 120, `sum ${sum}`);
  assert.equal(
    sampleValue(samples, "rookery_http_request_duration_seconds_count", {
      route: "/api/v1/statuses/:id",
      method: "GET",
      status: "4xx",
    }),
    1,
  );
  // No raw path becomes a series.
  assert.ok(!samples.some((s) => s.labels.route?.includes("123456")));

  // Each thread tells its own heap and event loop; the process its resident memory, once.
  const threads = new Set(samples.filter((s) => s.name === "rookery_thread_heap_bytes").map((s) => s.labels.thread));
  assert.equal(threads.size, 2);
  assert.ok(threads.has("main"));
  for (const thread of threads) {
    assert.ok(sampleValue(samples, "rookery_thread_heap_bytes", { thread: thread!, state: "used" })! > 1_000_000);
    assert.ok(sampleValue(samples, "rookery_event_loop_delay_seconds", { thread: thread!, quantile: "0.99" })! >= 0);
  }
  assert.ok(sampleValue(samples, "process_resident_memory_bytes")! > 10_000_000);
  assert.ok(sampleValue(samples, "rookery_db_connections", { state: "open" })! >= 1);
  assert.equal(typeof sampleValue(samples, "rookery_db_waiting"), "number");
  const lookups = samples.filter((s) => s.name === "rookery_cache_lookups_total" && s.labels.cache === "computed");
  assert.equal(lookups.length, 2);
});

test("time waiting for a database connection, and the connections lent out", async () => {
  const rt = running.rt;
  const slow = (samples: Sample[]) =>
    sampleValue(samples, "rookery_db_connection_wait_seconds_count")! -
    sampleValue(samples, "rookery_db_connection_wait_seconds_bucket", { le: "0.025" })!;
  const before = await metrics();
  assert.ok(sampleValue(before, "rookery_db_connection_wait_seconds_count")! > 0, "every query is timed");
  // Every connection of the main thread is taken (its pool's four, or SQLite's one), and held.
  const connections = TEST_DATABASE_URL ? 4 : 1;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let entered = 0;
  let allIn!: () => void;
  const taken = new Promise<void>((resolve) => {
    allIn = resolve;
  });
  const holders = Array.from({ length: connections }, () =>
    rt.db.transaction().execute(async (trx) => {
      await trx.selectFrom("accounts").select("id").execute();
      if (++entered === connections) allIn();
      await gate;
    }),
  );
  await taken;
  const lent = parse(await rt.metrics!.registry.getSingleMetricAsString("rookery_db_connections"));
  if (rt.dialect === "postgres") assert.equal(sampleValue(lent, "rookery_db_connections", { state: "in_use" }), 4);
  else
    assert.deepEqual(
      lent.map((s) => [s.labels.state, s.value]),
      [
        ["open", 1],
        ["idle", 0],
        ["in_use", 1],
      ],
    );
  const waiting = rt.db.selectFrom("accounts").select("id").execute();
  // Held for 50 ms at least, so that the query waits at least that long.
  await new Promise((resolve) => setTimeout(resolve, 50));
  release();
  await Promise.all([...holders, waiting]);
  const after = await metrics();
  assert.ok(slow(after) >= slow(before) + 1, `${slow(before)} → ${slow(after)} waits above 25 ms`);
  const sum = sampleValue(after, "rookery_db_connection_wait_seconds_sum")!;
  assert.ok(sum >= 0.05, `waited ${sum} s in all`);
});

test("an unsigned activity posted to the inbox is counted as refused for its signature", async () => {
  const activity = JSON.stringify({
    "@context": "https://www.w3.org/ns/activitystreams",
    id: "https://remote.example/follows/1",
    type: "Follow",
    actor: "https://remote.example/users/someone",
    object: "https://metrics.test/users/measured",
  });
  const status = await call("POST", "/users/measured/inbox", activity, { "content-type": "application/activity+json" });
  assert.equal(status, 401);
  const samples = await metrics();
  assert.equal(sampleValue(samples, "rookery_inbox_activities_total", { outcome: "signature" }), 1);
  assert.equal(
    sampleValue(samples, "rookery_http_request_duration_seconds_count", {
      route: "/users/:identifier/inbox",
      method: "POST",
      status: "4xx",
    }),
    1,
  );
});

test("a failing job: queue depth, retries, then given up", async () => {
  await running.rt.queue.enqueue("metrics.no_such_job" as never, {} as never, { maxAttempts: 2 });
  const type = { type: "metrics.no_such_job" };
  const samples = await until((s) => sampleValue(s, "rookery_jobs_dead", type) === 1);
  assert.equal(sampleValue(samples, "rookery_job_failures_total", { ...type, outcome: "retry" }), 1);
  assert.equal(sampleValue(samples, "rookery_job_failures_total", { ...type, outcome: "dead" }), 1);
  assert.equal(sampleValue(samples, "rookery_jobs_waiting", type), 0);
  assert.equal(sampleValue(samples, "rookery_jobs_retrying", type), 0);
  assert.equal(sampleValue(samples, "rookery_jobs_oldest_due_seconds", type), 0);
});

test("a streaming connection open on either thread is counted", async () => {
  const stream = new AbortController();
  const res = await fetch(`http://127.0.0.1:${running.port}/api/v1/streaming/user`, {
    headers: { authorization: `Bearer ${token}` },
    signal: stream.signal,
  });
  assert.equal(res.status, 200);
  try {
    await until((s) => sampleValue(s, "rookery_streaming_connections") === 1);
  } finally {
    stream.abort();
  }
  await until((s) => sampleValue(s, "rookery_streaming_connections") === 0);
});

test("deliveries are counted by remote server and outcome", async () => {
  let answer = 202;
  const inboxServer = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(answer).end());
  });
  await new Promise<void>((resolve) => inboxServer.listen(0, "127.0.0.1", resolve));
  const host = `127.0.0.1:${(inboxServer.address() as AddressInfo).port}`;
  const account = await running.rt.db
    .selectFrom("accounts")
    .select("id")
    .where("username", "=", "measured")
    .executeTakeFirstOrThrow();
  const job = {
    inbox: `http://${host}/inbox`,
    owner: account.id,
    keyId: "https://metrics.test/users/measured#main-key",
    body: "{}",
  };
  try {
    await deliver(running.rt, job);
    await deliver(running.rt, job);
    answer = 503;
    await assert.rejects(deliver(running.rt, job));
    answer = 410;
    await deliver(running.rt, job);
  } finally {
    inboxServer.close();
    inboxServer.closeAllConnections();
  }
  const samples = await metrics();
  assert.equal(sampleValue(samples, "rookery_deliveries_total", { host, outcome: "delivered" }), 2);
  assert.equal(sampleValue(samples, "rookery_deliveries_total", { host, outcome: "failed" }), 1);
  assert.equal(sampleValue(samples, "rookery_deliveries_total", { host, outcome: "refused" }), 1);
});

test("the listener wants its token, and serves /metrics only", async () => {
  assert.equal((await scrape({})).status, 401);
  assert.equal((await scrape({ authorization: "Bearer wrong" })).status, 401);
  assert.equal((await scrape(undefined, "/")).status, 404);
  assert.equal((await scrape(undefined, "/metrics?x=1")).status, 200);
});

test("metrics are off by default, and never open to the network without a token", async () => {
  const plain = await startServer();
  try {
    assert.equal(plain.rt.metrics, null);
    assert.equal(plain.rt.config.metrics, null);
  } finally {
    await plain.close();
  }
  assert.throws(
    () => loadConfig({ METRICS_PORT: "9100", METRICS_BIND: "0.0.0.0" }),
    (e: Error) => e instanceof ConfigError && /METRICS_BIND .* needs METRICS_TOKEN/.test(e.message),
  );
  assert.deepEqual(loadConfig({ METRICS_PORT: "9100" }).metrics, { port: 9100, bind: "127.0.0.1", token: null });
});
