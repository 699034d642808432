// Redis going away (REDIS_URL set: rate-limit counters and the bus): the REST API keeps answering
// without waiting for it, and the connections come back by themselves once it returns. Redis is
// reached through a proxy that the test cuts and restores.
import assert from "node:assert/strict";
import { connect, createServer, type Server, type Socket } from "node:net";
import { after, before, test } from "node:test";
import { Redis } from "ioredis";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

const REDIS = { host: "127.0.0.1", port: 6379 };

/** A TCP proxy to Redis that can be cut (every connection dropped) and restored on the same port. */
function redisProxy() {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = createServer((client) => {
        const upstream = connect(REDIS);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on("close", () => sockets.delete(s));
          s.on("error", () => {
            client.destroy();
            upstream.destroy();
          });
        }
        client.pipe(upstream).pipe(client);
      });
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        port = (server!.address() as { port: number }).port;
        resolve();
      });
    });
  return {
    listen,
    get listening() {
      return server?.listening ?? false;
    },
    get url() {
      return `redis://127.0.0.1:${port}`;
    },
    async cut() {
      const closed = new Promise((r) => server!.close(r));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}

const proxy = redisProxy();
let server: TestServer;
let user: TestUser;
let redis: Redis;
let namespace: string;

before(async () => {
  await proxy.listen();
  server = await startServer({ env: { REDIS_URL: proxy.url } });
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
  await sleep(1200);
  assert.equal((await server.get("/api/v1/timelines/home", { token: user.token })).status, 200);
  const before = await counted();
  assert.ok(before > 0, "the counters are in Redis");

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
