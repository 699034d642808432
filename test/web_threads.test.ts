// `rookery serve` with several web threads in one process: connections land on different threads,
// yet every thread sees what another changed (caches dropped on the bus), and jobs added in any
// thread run in whichever thread is free.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Worker } from "node:worker_threads";
import type { LogRecord } from "@logtape/logtape";
import { loadConfig } from "../src/config.ts";
import { ID_TAGS, idTag } from "../src/domain/ids.ts";
import { dispatcher } from "../src/jobs/handlers.ts";
import { type Running, start } from "../src/server.ts";
import { createLocalUser } from "../src/services/accounts/accounts.ts";
import { createApplication } from "../src/services/auth/apps.ts";
import { issueToken } from "../src/services/auth/tokens.ts";
import { captureLogs, stopCapturingLogs } from "./log_capture.ts";
import { adminQuery, TEST_DATABASE_URL } from "./rig.ts";
import { waitUntil } from "./wait.ts";

const THREADS = 3;
let running: Running;
let dataDir: string;
let schema: string | undefined;
let token: string;
let records: LogRecord[];

before(async () => {
  // The main thread's log, where thread deaths are told.
  records = await captureLogs(["rookery", "server"], "info");
  dataDir = mkdtempSync(join(tmpdir(), "rookery-threads-"));
  if (TEST_DATABASE_URL) {
    schema = `t_${randomBytes(6).toString("hex")}`;
    await adminQuery(`CREATE SCHEMA ${schema}`);
  }
  const config = loadConfig({
    LOCAL_DOMAIN: "threads.test",
    PORT: "0",
    WEB_THREADS: String(THREADS),
    DATA_DIR: dataDir,
    DATABASE_URL: TEST_DATABASE_URL ?? `sqlite:${join(dataDir, "rookery.sqlite")}`,
    SECRET_KEY_BASE: randomBytes(32).toString("hex"),
    LOG_LEVEL: "silent",
  });
  running = await start(config, { web: true, worker: true }, { schema, poolSize: 4 });
  const app = await createApplication(running.rt, {
    name: "Threads",
    redirectUris: ["urn:ietf:wg:oauth:2.0:oob"],
    scopes: ["read", "write"],
  });
  const user = await createLocalUser(running.rt, {
    username: "threaded",
    email: "threaded@example.test",
    password: "correct horse battery staple",
  });
  token = (await issueToken(running.rt, { applicationId: app.id, userId: user.userId, scopes: ["read", "write"] }))
    .token;
});

after(async () => {
  await running.stop();
  await stopCapturingLogs();
  if (schema) await adminQuery(`DROP SCHEMA ${schema} CASCADE`);
  rmSync(dataDir, { recursive: true, force: true });
});

/** One request on a connection of its own, so that the kernel may hand it to any thread. */
function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: running.port,
        method,
        path,
        agent: false,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => {
          text += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      },
    );
    req.on("error", reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

test("posts made at once through several threads all reach the home timeline, through every thread", async () => {
  // Written concurrently by different threads, each with its own database connection.
  const responses = await Promise.all(
    Array.from({ length: 6 }, (_, i) => call("POST", "/api/v1/statuses", { status: `Post ${i}` })),
  );
  assert.deepEqual(
    responses.map((r) => r.status),
    [200, 200, 200, 200, 200, 200],
  );
  const expected = responses.map((r) => r.body.id as string).sort((a, b) => (BigInt(b) > BigInt(a) ? 1 : -1));
  // The fan-out jobs run in any thread, woken by whichever thread took the post. How soon (before
  // the queue's own polling would find them) is measured by bench/threads.ts, not bounded here.
  let home: string[] = [];
  await waitUntil(
    "the posts in the home timeline",
    async () => {
      home = (await call("GET", "/api/v1/timelines/home")).body.map((s: { id: string }) => s.id);
      return home.length === expected.length;
    },
    { every: 20 },
  );
  assert.deepEqual(home, expected);
  for (let i = 0; i < 12; i++) {
    const page = await call("GET", "/api/v1/timelines/home");
    assert.deepEqual(
      page.body.map((s: { id: string }) => s.id),
      expected,
    );
  }
});

test("the web threads work jobs too: with the main thread's worker stopped, posts still fan out", async () => {
  await running.rt.queue.stop();
  try {
    const posted = await Promise.all(
      Array.from({ length: 4 }, (_, i) => call("POST", "/api/v1/statuses", { status: `Worked elsewhere ${i}` })),
    );
    const ids = posted.map((r) => r.body.id as string);
    await waitUntil(
      "the posts in the home timeline",
      async () => {
        const home = (await call("GET", "/api/v1/timelines/home")).body.map((s: { id: string }) => s.id);
        return ids.every((id) => home.includes(id));
      },
      { every: 20 },
    );
    const left = await running.rt.db.selectFrom("jobs").select("type").where("type", "=", "feeds.fanout").execute();
    assert.deepEqual(left, []);
  } finally {
    await running.rt.queue.start(dispatcher(running.rt));
  }
});

test("a profile change made through one thread shows through all of them", async () => {
  const status = (await call("POST", "/api/v1/statuses", { status: "Cached everywhere" })).body.id;
  // Every thread renders (and keeps) the author once.
  for (let i = 0; i < 12; i++) {
    assert.equal((await call("GET", `/api/v1/statuses/${status}`)).body.account.display_name, "");
  }
  const updated = await call("PATCH", "/api/v1/accounts/update_credentials", { display_name: "Renamed" });
  assert.equal(updated.body.display_name, "Renamed");
  // The other threads drop their copy when the change reaches them on the bus.
  await waitUntil("every thread to show the new name", async () => {
    for (let i = 0; i < 12; i++) {
      if ((await call("GET", `/api/v1/statuses/${status}`)).body.account.display_name !== "Renamed") return false;
    }
    return true;
  });
});

const deaths = () => records.filter((r) => String(r.rawMessage).startsWith("A web thread stopped"));

/** Kills the newest web thread and waits for the one that takes its place to listen. */
async function killNewest(): Promise<Worker> {
  const pool = running.threads!;
  const before = [...pool.threads];
  await before[before.length - 1].terminate();
  let replacement: Worker | undefined;
  await waitUntil(
    "a thread in its place",
    () => {
      replacement = [...pool.threads].find((t) => !before.includes(t));
      return replacement !== undefined;
    },
    { every: 20 },
  );
  return replacement!;
}

test("a web thread that dies is replaced, and every thread answers after", async () => {
  const pool = running.threads!;
  assert.equal(pool.threads.size, THREADS - 1);
  const dead = [...pool.threads].at(-1)!;
  const replacement = await killNewest();
  assert.equal(pool.threads.size, THREADS - 1);
  assert.ok(!pool.threads.has(dead));
  assert.ok(pool.threads.has(replacement));
  const [death] = deaths();
  assert.equal(death.level, "error");
  assert.equal(death.properties.reason, "exit code 1");

  // Connections of their own land on every thread, the new one included: each one's event loop
  // works while they are answered.
  const threads = [...pool.threads];
  const idle = threads.map((t) => t.performance.eventLoopUtilization());
  const responses = await Promise.all(Array.from({ length: 60 }, () => call("GET", "/api/v1/timelines/home")));
  assert.deepEqual(new Set(responses.map((r) => r.status)), new Set([200]));
  const busy = threads.map((t, i) => t.performance.eventLoopUtilization(idle[i]).active);
  for (const active of busy) assert.ok(active > 5, `a thread was busy ${active} ms`);

  // Each thread makes ids with a tag of the process's block, the replacement too (its thread id
  // lies past the block: it takes the place of the thread it replaced).
  const block = Array.from({ length: THREADS }, (_, i) => (idTag() + i) % ID_TAGS);
  const posts = await Promise.all(
    Array.from({ length: 20 }, (_, i) => call("POST", "/api/v1/statuses", { status: `Tagged ${i}` })),
  );
  for (const post of posts) {
    assert.equal(post.status, 200);
    const tag = Number((BigInt(post.body.id) >> 10n) & 63n);
    assert.ok(block.includes(tag), `${post.body.id}: tag ${tag} outside ${block.join(", ")}`);
  }
});

test("threads that keep dying right after starting are replaced ever more slowly", async () => {
  await killNewest();
  await killNewest();
  const delays = deaths()
    .slice(-2)
    .map((r) => r.properties.delay as number);
  // Each lived less than the crash-loop threshold: the second waited twice as long as the first.
  assert.ok(delays[0] >= 1000, `first delay ${delays[0]}`);
  assert.equal(delays[1], delays[0] * 2);
});
