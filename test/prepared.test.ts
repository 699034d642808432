// Statements compiled once and run with new values: each run gets its own values, shapes compile
// apart, and a statement that binds a date of its own (which would stand still) is refused.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { sql } from "kysely";
import { prepared } from "../src/db/prepared.ts";
import { startServer, type TestServer } from "./rig.ts";

let server: TestServer;
before(async () => {
  server = await startServer({ worker: false });
});
after(() => server.close());

test("a prepared statement runs with the values of each run, in the shape asked for", async () => {
  const db = server.rt.db;
  const pick = prepared((d, s: { doubled: boolean }, v: { n: number; word: string }) =>
    d.selectNoFrom([
      (s.doubled ? sql<number>`${v.n} * 2` : sql<number>`${v.n} + 0`).as("n"),
      sql<string>`${v.word}`.as("word"),
    ]),
  );
  assert.deepEqual(
    (await pick(db, { doubled: false }, { n: 3, word: "a" })).map((r) => [Number(r.n), r.word]),
    [[3, "a"]],
  );
  assert.deepEqual(
    (await pick(db, { doubled: false }, { n: 5, word: "b" })).map((r) => [Number(r.n), r.word]),
    [[5, "b"]],
  );
  assert.deepEqual(
    (await pick(db, { doubled: true }, { n: 5, word: "c" })).map((r) => [Number(r.n), r.word]),
    [[10, "c"]],
  );
  // In a transaction too.
  const inside = await db.transaction().execute((trx) => pick(trx, { doubled: true }, { n: 7, word: "d" }));
  assert.deepEqual(
    inside.map((r) => [Number(r.n), r.word]),
    [[14, "d"]],
  );
});

test("a prepared statement that binds a date of its own is refused", async () => {
  const stale = prepared((d, _s: null, _v: Record<string, never>) => d.selectNoFrom(sql<Date>`${new Date()}`.as("at")));
  await assert.rejects(stale(server.rt.db, null, {}), /binds no value of its own but constants/);
});
