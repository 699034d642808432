// Streaming across processes: two web processes and a worker on PostgreSQL and Redis, as `rookery web`
// and `rookery worker` run them. A post accepted by one web process reaches a socket held by the
// other; a web process that loses Redis keeps answering, keeps its sockets, and hears events again
// once Redis is back. Runs on PostgreSQL only (TEST_DATABASE_URL), with Redis on 127.0.0.1:6379.
import assert from "node:assert/strict";
import { type ChildProcess, fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { connect, createServer, type Socket as NetSocket, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { loadConfig } from "../src/config.ts";
import { createRuntime, type Runtime } from "../src/runtime.ts";
import { createLocalUser } from "../src/services/accounts/accounts.ts";
import { createApplication } from "../src/services/auth/apps.ts";
import { issueToken } from "../src/services/auth/tokens.ts";
import { adminQuery, TEST_DATABASE_URL } from "./rig.ts";
import { Socket } from "./streaming_client.ts";
import { waitUntil } from "./wait.ts";

const REDIS = { host: "127.0.0.1", port: 6379 };
const skip = TEST_DATABASE_URL ? false : "needs TEST_DATABASE_URL (PostgreSQL) and Redis";

/** A TCP relay to Redis that can be cut and restored, standing in for a network outage. */
class RedisRelay {
  readonly sockets = new Set<NetSocket>();
  server: Server | null = null;
  port = 0;

  async start(port = 0) {
    this.server = createServer((client) => {
      const redis = connect(REDIS.port, REDIS.host);
      for (const s of [client, redis]) {
        this.sockets.add(s);
        s.on("error", () => {});
        s.on("close", () => {
          this.sockets.delete(s);
          client.destroy();
          redis.destroy();
        });
      }
      client.pipe(redis).pipe(client);
    });
    await new Promise<void>((resolve) => this.server!.listen(port, "127.0.0.1", () => resolve()));
    this.port = (this.server.address() as { port: number }).port;
  }

  async cut() {
    await new Promise<void>((resolve) => {
      this.server!.close(() => resolve());
      for (const s of this.sockets) s.destroy();
    });
  }
}

let database: string;
let dataDir: string;
let seeder: Runtime;
const children: ChildProcess[] = [];
const relay = new RedisRelay();
let env: Record<string, string>;
let webA: string;
let webB: string;

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", () => resolve()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** Starts `rookery <role>` and waits until it says it started. */
async function spawn(role: "web" | "worker", extra: Record<string, string> = {}): Promise<string> {
  const port = await freePort();
  const child = fork(join(import.meta.dirname, "../src/main.ts"), [role], {
    env: { ...process.env, ...env, LOG_LEVEL: "info", PORT: String(port), ...extra },
    stdio: ["ignore", "pipe", "inherit", "ipc"],
  });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    let seen = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      if (process.env.TEST_LOG) process.stdout.write(chunk);
      seen = (seen + chunk.toString()).slice(-10_000);
      if (seen.includes("Rookery started")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`rookery ${role} exited with ${code}`)));
  });
  return `http://127.0.0.1:${port}`;
}

before(async () => {
  if (skip) return;
  database = `rookery_streaming_${randomBytes(5).toString("hex")}`;
  await adminQuery(`CREATE DATABASE ${database}`);
  dataDir = mkdtempSync(join(tmpdir(), "rookery-streaming-"));
  const dbUrl = new URL(TEST_DATABASE_URL!);
  dbUrl.pathname = `/${database}`;
  await relay.start();
  // The domain names the Redis channels: unique to this run.
  env = {
    LOCAL_DOMAIN: `streaming-${randomBytes(4).toString("hex")}.test`,
    DATABASE_URL: dbUrl.toString(),
    REDIS_URL: `redis://${REDIS.host}:${REDIS.port}`,
    SECRET_KEY_BASE: randomBytes(32).toString("hex"),
    DATA_DIR: dataDir,
    WEB_THREADS: "1",
    RATE_LIMITS: "false",
  };
  // The first web process applies the migrations; the others start on the migrated database.
  webA = await spawn("web");
  await spawn("worker");
  // B reaches Redis through the relay, which the outage test cuts.
  webB = await spawn("web", { REDIS_URL: `redis://127.0.0.1:${relay.port}` });
  seeder = await createRuntime(loadConfig({ ...env, REDIS_URL: "" }), { migrate: false, poolSize: 2 });
});

after(async () => {
  if (skip) return;
  for (const child of children) child.kill("SIGTERM");
  await Promise.all(
    children.map((c) => new Promise((resolve) => (c.exitCode !== null ? resolve(0) : c.once("exit", resolve)))),
  );
  await seeder?.close();
  await relay.cut().catch(() => {});
  await adminQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  rmSync(dataDir, { recursive: true, force: true });
});

let app: { id: string } | null = null;
async function user(username: string) {
  app ??= await createApplication(seeder, {
    name: "test",
    redirectUris: ["urn:ietf:wg:oauth:2.0:oob"],
    scopes: ["read", "write", "follow"],
  });
  const created = await createLocalUser(seeder, {
    username,
    email: `${username}@example.test`,
    password: "correct horse battery staple",
  });
  const { token } = await issueToken(seeder, {
    applicationId: app.id,
    userId: created.userId,
    scopes: ["read", "write", "follow"],
  });
  return { ...created, username, token };
}

const call = (base: string, method: string, path: string, token: string, json?: unknown) =>
  fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(json ? { "content-type": "application/json" } : {}) },
    body: json ? JSON.stringify(json) : undefined,
  });

test("a post accepted by one web process reaches a socket held by another", { skip }, async () => {
  const alice = await user("alice");
  const bob = await user("bob");
  assert.equal((await call(webA, "POST", `/api/v1/accounts/${alice.accountId}/follow`, bob.token)).status, 200);
  const socket = await Socket.open(`${webB.replace("http", "ws")}/api/v1/streaming?stream=user`, { token: bob.token });
  // No acknowledgement exists for a subscription: give it a moment on the other process.
  await sleep(300);

  const posted = await call(webA, "POST", "/api/v1/statuses", alice.token, { status: `hi @${bob.username}` });
  assert.equal(posted.status, 200);
  const status = (await posted.json()) as { id: string };
  const update = await socket.next("update", (f) => JSON.parse(f.payload!).id === status.id);
  assert.deepEqual(update.stream, ["user"]);
  const notification = await socket.next("notification", () => true);
  assert.equal(JSON.parse(notification.payload!).status.id, status.id);
  // The same entity either process gives over REST.
  const home = await (await call(webB, "GET", "/api/v1/timelines/home", bob.token)).json();
  assert.deepEqual(JSON.parse(update.payload!), (home as unknown[])[0]);

  assert.equal((await call(webA, "DELETE", `/api/v1/statuses/${status.id}`, alice.token)).status, 200);
  const gone = await socket.next("delete", () => true);
  assert.equal(gone.payload, status.id);
  socket.close();
});

test("a web process that loses Redis keeps REST and its sockets, and hears events again after", { skip }, async () => {
  const carol = await user("carol");
  const dave = await user("dave");
  assert.equal((await call(webA, "POST", `/api/v1/accounts/${carol.accountId}/follow`, dave.token)).status, 200);
  const socket = await Socket.open(`${webB.replace("http", "ws")}/api/v1/streaming?stream=user`, { token: dave.token });
  await sleep(300);

  await relay.cut();
  // REST still answers on B, posting included (its events are lost, with a warning in the log).
  const during = await call(webB, "POST", "/api/v1/statuses", dave.token, { status: "while Redis is away" });
  assert.equal(during.status, 200);
  assert.equal((await call(webB, "GET", "/api/v1/timelines/home", dave.token)).status, 200);
  await sleep(500);
  assert.equal(socket.closed, false, "the socket stays open");

  await relay.start(relay.port);
  // ioredis reconnects (backing off up to 2 s) and subscribes again.
  // A post made before it has may be lost: post again until one reaches the socket.
  await waitUntil("events to reach the socket again", async () => {
    const res = await call(webA, "POST", "/api/v1/statuses", carol.token, { status: "after the outage" });
    const { id } = (await res.json()) as { id: string };
    return socket
      .next("update", (f) => JSON.parse(f.payload!).id === id, 2_000)
      .then(
        () => true,
        () => false,
      );
  });
  assert.equal(socket.closed, false);
  socket.close();
});
