// GET /health (liveness, as Mastodon's) and GET /health/ready (readiness): the second answers 503
// while the database or Redis is away, and 200 again once it is back; the first answers OK through
// it all. The database and Redis are reached through proxies the test cuts (on SQLite, another
// process holds the write lock instead).
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { after, before, test } from "node:test";
import { dialectUnderTest, startServer, TEST_DATABASE_URL, type TestServer } from "./rig.ts";
import { tcpProxy } from "./tcp_proxy.ts";

const redisProxy = tcpProxy({ host: "127.0.0.1", port: 6379 });
const postgres = TEST_DATABASE_URL ? new URL(TEST_DATABASE_URL) : null;
const postgresProxy = postgres ? tcpProxy({ host: postgres.hostname, port: Number(postgres.port || 5432) }) : null;
let server: TestServer;

before(async () => {
  await redisProxy.listen();
  const env: Record<string, string> = { REDIS_URL: `redis://127.0.0.1:${redisProxy.port}` };
  if (postgres && postgresProxy) {
    await postgresProxy.listen();
    const proxied = new URL(postgres);
    proxied.hostname = "127.0.0.1";
    proxied.port = String(postgresProxy.port);
    env.DATABASE_URL = proxied.toString();
  }
  server = await startServer({ env });
});
after(async () => {
  for (const proxy of [redisProxy, postgresProxy]) if (proxy && !proxy.listening) await proxy.listen();
  await server.close();
  await redisProxy.cut();
  await postgresProxy?.cut();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The readiness answer, once it has the status wanted (the connections come back on their own). */
async function readyUntil(status: number) {
  for (;;) {
    const res = await server.get("/health/ready");
    if (res.status === status) return res;
    await sleep(100);
  }
}

async function assertLive() {
  const res = await server.get("/health");
  assert.equal(res.status, 200);
  assert.equal(res.text, "OK");
  assert.match(res.headers.get("content-type") ?? "", /^text\/plain/);
}

test("GET /health answers OK in plain text, with and without a trailing slash", async () => {
  await assertLive();
  const slash = await server.get("/health/");
  assert.deepEqual([slash.status, slash.text], [200, "OK"]);
});

test("GET /health/ready names what it checked, once Redis is connected", async () => {
  const res = await readyUntil(200);
  assert.match(res.headers.get("content-type") ?? "", /^text\/plain/);
  const [first, database, redis] = res.text.trim().split("\n");
  assert.equal(first, "OK");
  assert.equal(
    database,
    dialectUnderTest === "postgres" ? "database: ok (PostgreSQL answers)" : "database: ok (SQLite takes writes)",
  );
  assert.equal(redis, "redis: ok (Redis answers)");
});

test("the database away: /health/ready answers 503 until it is back, /health OK throughout", async () => {
  let release: () => Promise<void>;
  if (postgresProxy) {
    await postgresProxy.cut();
    release = () => postgresProxy.listen();
  } else {
    const other = new DatabaseSync(server.rt.config.databaseUrl.replace(/^sqlite:/, ""), { timeout: 0 });
    other.exec("BEGIN IMMEDIATE");
    release = async () => {
      other.exec("ROLLBACK");
      other.close();
    };
  }
  try {
    const res = await readyUntil(503);
    const lines = res.text.trim().split("\n");
    assert.equal(lines[0], "Unavailable");
    assert.match(lines[1]!, /^database: unavailable \(.+\)$/);
    await assertLive();
  } finally {
    await release();
  }
  const back = await readyUntil(200);
  assert.match(back.text, /^OK\ndatabase: ok/);
});

test("Redis away: /health/ready answers 503 naming Redis until it is back", async () => {
  await redisProxy.cut();
  try {
    const res = await readyUntil(503);
    const lines = res.text.trim().split("\n");
    assert.equal(lines[0], "Unavailable");
    assert.match(lines[1]!, /^database: ok/);
    assert.match(lines[2]!, /^redis: unavailable \(.+\)$/);
    await assertLive();
  } finally {
    await redisProxy.listen();
  }
  const back = await readyUntil(200);
  assert.match(back.text, /redis: ok \(Redis answers\)/);
});
