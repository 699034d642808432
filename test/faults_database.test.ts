// The database going away under load: on PostgreSQL every connection of the server is terminated
// (as a restart, a failover or a network cut does) again and again while clients write; on SQLite
// another connection holds the write lock past the wait. Requests answer 503 with Retry-After, never
// 500, nothing acknowledged is lost, the process lives on, and service comes back by itself (how soon
// is a number for a benchmark; a test here waits for it as long as a loaded machine needs).
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { after, before, test } from "node:test";
import pg from "pg";
import { applicationName } from "../src/db/index.ts";
import { follow, post } from "./fixtures.ts";
import { adminQuery, dialectUnderTest, startServer, type TestServer, type TestUser } from "./rig.ts";
import { waitUntil } from "./wait.ts";

let server: TestServer;
let writer: TestUser;
let fan: TestUser;

before(async () => {
  server = await startServer();
  writer = await server.user("writer");
  fan = await server.user("fan");
  await follow(server, fan, writer);
  await server.settle();
});
after(() => server.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Terminates every connection of the test server, the queue's LISTEN connection among them. */
const terminateConnections = () =>
  adminQuery(
    `select pg_terminate_backend(pid) from pg_stat_activity where application_name = '${applicationName(server.schema)}'`,
  );

async function feedHas(ownerId: string, statusId: string): Promise<boolean> {
  const row = await server.rt.db
    .selectFrom("feed_entries")
    .select("status_id")
    .where("feed_id", "=", ownerId)
    .where("status_id", "=", statusId)
    .executeTakeFirst();
  return row !== undefined;
}

/** `check`, with the database's connections failing meanwhile counting as "not yet". */
const once = (check: () => Promise<boolean>) => () => check().catch(() => false);

test("PostgreSQL connections terminated under load: 503 with Retry-After, nothing acknowledged lost, back by itself", {
  skip: dialectUnderTest !== "postgres" && "PostgreSQL only",
  timeout: 600_000,
}, async () => {
  const statuses = new Map<number, number>();
  const acknowledged: string[] = [];
  let loading = true;
  const client = async (n: number) => {
    for (let i = 0; loading; i++) {
      const res =
        i % 2 === 0
          ? await server.post("/api/v1/statuses", { token: writer.token, json: { status: `load ${n}.${i}` } })
          : await server.get("/api/v1/timelines/home", { token: fan.token });
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (res.status === 200 && i % 2 === 0) acknowledged.push(res.body.id);
      if (res.status === 503) {
        assert.match(res.headers.get("retry-after") ?? "", /^\d+$/);
        assert.equal(typeof res.body.error, "string");
      } else {
        assert.equal(res.status, 200, res.text);
      }
    }
  };
  const clients = [1, 2, 3, 4].map(client);
  await sleep(300);
  for (let i = 0; i < 8; i++) {
    await terminateConnections();
    await sleep(250);
  }
  await waitUntil("the server to answer again", async () => {
    const res = await server.get("/api/v1/accounts/verify_credentials", { token: writer.token });
    return res.status === 200;
  });
  loading = false;
  await Promise.all(clients);
  assert.ok((statuses.get(200) ?? 0) > 0);
  assert.ok((statuses.get(503) ?? 0) > 0, `some requests met the database away: ${JSON.stringify([...statuses])}`);

  const stored = await server.rt.db.selectFrom("statuses").select("id").where("id", "in", acknowledged).execute();
  assert.equal(stored.length, acknowledged.length);

  // The queue listens again: a job added now wakes the worker through its notification, not its
  // 10 s poll. Seen as the worker's wake-up happening within the delivery of a notification to a
  // database connection of this process, rather than as a bound in milliseconds.
  await waitUntil("the queue to listen again", () => server.rt.queue.listening);
  const queue = server.rt.queue;
  const wake = queue.wake;
  const emit = pg.Client.prototype.emit;
  let notifying = false;
  let wokenByNotification = 0;
  queue.wake = () => {
    if (notifying) wokenByNotification++;
    wake.call(queue);
  };
  pg.Client.prototype.emit = function (this: pg.Client, event: string | symbol, ...args: unknown[]) {
    notifying = event === "notification";
    try {
      return emit.call(this, event, ...args);
    } finally {
      notifying = false;
    }
  };
  try {
    const status = await server.post("/api/v1/statuses", { token: writer.token, json: { status: "after" } });
    assert.equal(status.status, 200);
    await waitUntil(
      "the fan-out after reconnecting",
      once(() => feedHas(fan.accountId, status.body.id)),
    );
    assert.ok(wokenByNotification > 0, "the job's notification woke the worker");
  } finally {
    pg.Client.prototype.emit = emit;
    Reflect.deleteProperty(queue, "wake");
  }
});

test("PostgreSQL crash losing the feeds while Rookery runs: noticed on reconnecting, and the feeds rebuilt", {
  skip: dialectUnderTest !== "postgres" && "PostgreSQL only",
  timeout: 600_000,
}, async () => {
  const status = await post(server, writer, "before the crash");
  assert.ok(await feedHas(fan.accountId, status.id));
  // What a crash does to the unlogged tables (migration 0020), then the connections going.
  for (const table of ["feed_entries", "feed_horizons", "feeds_intact"] as const) {
    await server.rt.db.deleteFrom(table).execute();
  }
  await terminateConnections();
  await waitUntil(
    "the feeds to be found lost and marked rebuilt",
    once(async () => (await server.rt.db.selectFrom("feeds_intact").selectAll().execute()).length === 1),
  );
  await waitUntil(
    "the feed rebuilt",
    once(() => feedHas(fan.accountId, status.id)),
  );
  const home = await server.get("/api/v1/timelines/home", { token: fan.token });
  assert.equal(home.status, 200);
  assert.ok(home.body.some((s: { id: string }) => s.id === status.id));
});

test("SQLite locked past the wait: 503 with Retry-After, then the same write succeeds", {
  skip: dialectUnderTest !== "sqlite" && "SQLite only",
}, async () => {
  const path = server.rt.config.databaseUrl.replace(/^sqlite:/, "");
  const other = new DatabaseSync(path, { timeout: 0 });
  other.exec("BEGIN IMMEDIATE");
  try {
    const res = await server.post("/api/v1/statuses", { token: writer.token, json: { status: "while locked" } });
    assert.equal(res.status, 503, res.text);
    assert.equal(res.headers.get("retry-after"), "1");
    assert.equal(typeof res.body.error, "string");
  } finally {
    other.exec("ROLLBACK");
    other.close();
  }
  const res = await server.post("/api/v1/statuses", { token: writer.token, json: { status: "after the lock" } });
  assert.equal(res.status, 200, res.text);
  await server.settle();
  assert.ok(await feedHas(fan.accountId, res.body.id));
});
