// Feeds lost in a crash: on PostgreSQL they live in unlogged tables, which a crash empties
// (migration 0020). Emptying them by hand here does what PostgreSQL's recovery does.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { sql } from "kysely";
import { follow, post } from "./fixtures.ts";
import { dialectUnderTest, startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let writer: TestUser;
let fan: TestUser;
let listId: string;

before(async () => {
  server = await startServer();
  writer = await server.user("writer");
  fan = await server.user("fan");
  await follow(server, fan, writer);
  listId = (await server.post("/api/v1/lists", { token: fan.token, json: { title: "Writers" } })).body.id;
  await server.post(`/api/v1/lists/${listId}/accounts`, {
    token: fan.token,
    json: { account_ids: [writer.accountId] },
  });
  await server.settle();
});
after(() => server.close());

const timeline = async (path: string) => {
  const res = await server.get(path, { token: fan.token });
  assert.equal(res.status, 200);
  return res.body.map((s: { id: string }) => s.id) as string[];
};
const entries = async (feedId: string) =>
  (await server.rt.db.selectFrom("feed_entries").select("status_id").where("feed_id", "=", feedId).execute()).length;

test("on PostgreSQL, the feeds are written without the log", {
  skip: dialectUnderTest !== "postgres" && "PostgreSQL only",
}, async () => {
  const rows = await sql<{ relname: string; relpersistence: string }>`
    select c.relname, c.relpersistence from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = ${server.schema} and c.relname in ('feed_entries', 'feed_horizons', 'feeds_intact', 'statuses')
    order by c.relname`.execute(server.rt.db);
  assert.deepEqual(
    rows.rows.map((r) => [r.relname, r.relpersistence]),
    [
      ["feed_entries", "u"],
      ["feed_horizons", "u"],
      ["feeds_intact", "u"],
      ["statuses", "p"],
    ],
  );
});

test("feeds lost in a crash: timelines read from the statuses at once, and the home feeds are rebuilt", async () => {
  const before = [
    (await post(server, writer, "one")).id,
    (await post(server, writer, "two")).id,
    (await post(server, writer, "three")).id,
  ].reverse();
  await server.settle();
  assert.equal(await entries(fan.accountId), 3);
  assert.equal(await entries(listId), 3);

  for (const table of ["feed_entries", "feed_horizons", "feeds_intact"] as const) {
    await server.rt.db.deleteFrom(table).execute();
  }
  // The worker of the new runtime finds the feeds lost.
  await server.restart();
  // The list feed is not rebuilt: it reads from the statuses.
  assert.deepEqual(await timeline(`/api/v1/timelines/list/${listId}`), before);
  assert.deepEqual(await timeline("/api/v1/timelines/home"), before);
  await server.settle();
  assert.equal(await entries(fan.accountId), 3);
  assert.equal(await entries(listId), 0);
  assert.equal((await server.rt.db.selectFrom("feeds_intact").selectAll().execute()).length, 1);
  // A rebuilt feed holding every status it may has no horizon.
  const horizon = await server.rt.db
    .selectFrom("feed_horizons")
    .select("feed_id")
    .where("feed_id", "=", fan.accountId)
    .execute();
  assert.deepEqual(horizon, []);

  // Statuses posted since are in both feeds, above what is read from the statuses.
  const four = (await post(server, writer, "four")).id;
  await server.settle();
  assert.deepEqual(await timeline(`/api/v1/timelines/list/${listId}`), [four, ...before]);
  assert.deepEqual(await timeline("/api/v1/timelines/home"), [four, ...before]);
  assert.equal(await entries(listId), 1);

  // A second start finds the feeds whole and leaves them be.
  await server.restart();
  await server.settle();
  assert.equal(await entries(listId), 1);
  assert.deepEqual(await timeline(`/api/v1/timelines/list/${listId}`), [four, ...before]);
});
