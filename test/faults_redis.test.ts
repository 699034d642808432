// Redis going away (REDIS_URL set: rate-limit counters and the bus): the REST API keeps answering
// without waiting for it, and the connections come back by themselves once it returns. Redis is
// reached through a proxy that the test cuts and restores.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { LogRecord } from "@logtape/logtape";
import { Redis } from "ioredis";
import { captureLogs, stopCapturingLogs } from "./log_capture.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";
import { tcpProxy } from "./tcp_proxy.ts";
import { waitUntil } from "./wait.ts";

const REDIS = { host: "127.0.0.1", port: 6379 };

const proxy = tcpProxy(REDIS);
const redisUrl = () => `redis://127.0.0.1:${proxy.port}`;
let server: TestServer;
let user: TestUser;
let redis: Redis;
let namespace: string;

before(async () => {
  await proxy.listen();
  server = await startServer({ env: { REDIS_URL: redisUrl() } });
  user = await server.user("reader");
  redis = new Redis(REDIS);
  namespace = `rookery:${server.rt.config.localDomain}`;
});
after(async () => {
  // Closing waits for Redis to answer QUIT: it must be there, even when the test failed without it.
  if (!proxy.listening) await proxy.listen();
  await stopCapturingLogs();
  await server.close();
  await proxy.cut();
  const keys = await redis.keys(`${namespace}:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

/** The hits the server has counted in Redis. */
async function counted(): Promise<number> {
  const keys = await redis.keys(`${namespace}:rate:*`);
  const values = keys.length > 0 ? await redis.mget(...keys) : [];
  return values.reduce((sum, v) => sum + Number(v ?? 0), 0);
}

/** The text of what `category` logged since `from`. */
const logged = (records: LogRecord[], category: string, from = 0) =>
  records
    .slice(from)
    .filter((r) => r.category[1] === category)
    .map((r) => r.message.map((part) => (typeof part === "string" ? part : String(part))).join(""));

test("without Redis the API answers at once, and the counters reach Redis again once it is back", {
  timeout: 300_000,
}, async () => {
  for (let i = 0; i < 3; i++) {
    assert.equal((await server.get("/api/v1/timelines/home", { token: user.token })).status, 200);
  }
  // The counters reach Redis a moment after the requests.
  await waitUntil("the counters to reach Redis", async () => (await counted()) > 0, { every: 100 });
  assert.equal((await server.get("/api/v1/timelines/home", { token: user.token })).status, 200);
  const before = await counted();

  const records = await captureLogs(["rookery"], "info");
  await proxy.cut();
  // Both clients of the server see their connection close (the publisher tells it; the counters'
  // client tells of its reconnecting being refused).
  await waitUntil(
    "the server to notice Redis gone",
    () =>
      logged(records, "bus").some((w) => w.includes("publisher: connection lost")) &&
      logged(records, "rate-limits").some((w) => w.includes("ECONNREFUSED")),
  );
  const cutTold = records.length;
  for (let i = 0; i < 5; i++) {
    const write = await server.post("/api/v1/statuses", { token: user.token, json: { status: `without Redis ${i}` } });
    assert.equal(write.status, 200, write.text);
    const read = await server.get("/api/v1/timelines/home", { token: user.token });
    assert.equal(read.status, 200);
  }
  // The requests did not wait for Redis: every command they gave it was refused at once (no offline
  // queue holds it); none waited out the command timeout. That is the mechanism, whatever the load;
  // a bound in milliseconds would only measure the machine.
  const refused = [...logged(records, "rate-limits", cutTold), ...logged(records, "bus", cutTold)].filter(
    (w) => w.includes("not shared") || w.includes("not published"),
  );
  assert.ok(refused.length >= 5, `the requests tried Redis: ${JSON.stringify(refused)}`);
  for (const w of refused) assert.match(w, /enableOfflineQueue/, w);

  await proxy.listen();
  await waitUntil(
    "the counters to reach Redis again",
    async () => {
      const read = await server.get("/api/v1/timelines/home", { token: user.token });
      assert.equal(read.status, 200);
      return (await counted()) > before;
    },
    { every: 200 },
  );
});
