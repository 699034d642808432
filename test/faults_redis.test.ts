// Redis going away (REDIS_URL set: rate-limit counters and the bus): the REST API keeps answering
// without waiting for it, and the connections come back by themselves once it returns. Redis is
// reached through a proxy that the test cuts and restores.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Redis } from "ioredis";
import { startServer, type TestServer, type TestUser } from "./rig.ts";
import { tcpProxy } from "./tcp_proxy.ts";

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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test("without Redis the API answers at once, and the counters reach Redis again once it is back", async () => {
  for (let i = 0; i < 3; i++) {
    assert.equal((await server.get("/api/v1/timelines/home", { token: user.token })).status, 200);
  }
  // The counters reach Redis a moment after the requests.
  const reached = Date.now();
  while ((await counted()) === 0) {
    assert.ok(Date.now() - reached < 10_000, "the counters did not reach Redis within 10 s");
    await sleep(100);
  }
  assert.equal((await server.get("/api/v1/timelines/home", { token: user.token })).status, 200);
  const before = await counted();

  await proxy.cut();
  for (let i = 0; i < 5; i++) {
    const started = Date.now();
    const write = await server.post("/api/v1/statuses", { token: user.token, json: { status: `without Redis ${i}` } });
    assert.equal(write.status, 200, write.text);
    const read = await server.get("/api/v1/timelines/home", { token: user.token });
    assert.equal(read.status, 200);
    // A request waits at most for a command's timeout (1 s) on a connection not yet known dead;
    // the bound leaves room for a loaded machine.
    assert.ok(Date.now() - started < 5000, `${Date.now() - started} ms without Redis`);
  }

  await proxy.listen();
  const back = Date.now();
  for (;;) {
    assert.equal((await server.get("/api/v1/timelines/home", { token: user.token })).status, 200);
    if ((await counted()) > before) break;
    assert.ok(Date.now() - back < 10_000, "the counters did not reach Redis within 10 s");
    await sleep(200);
  }
});
