// Statements compiled once and run with new values: each run gets its own values, shapes compile
// apart, and a statement that binds a date of its own (which would stand still) is refused.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { sql } from "kysely";
import { prepared, preparedText } from "../src/db/prepared.ts";
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

test("a prepared statement's text has its values written in, read back as given (PostgreSQL)", async (t) => {
  if (server.rt.dialect !== "postgres") return t.skip("statement lists with values written in are PostgreSQL's");
  const echo = preparedText((d, _: null, v: { text: string; at: Date; n: number; none: null }) =>
    d.selectNoFrom([
      sql<string>`${v.text}::text`.as("text"),
      sql<Date>`${v.at}::timestamptz`.as("at"),
      sql<number>`${v.n}::int`.as("n"),
      sql<null>`${v.none}::text`.as("none"),
    ]),
  );
  const hostile = "it's \\'; select 1; -- \\\\ '' \\";
  const at = new Date("2026-11-28T01:02:03.456Z");
  for (const conforming of ["on", "off"]) {
    const text = echo(server.rt.db, null, { text: hostile, at, n: 42, none: null });
    // Set in a statement of its own: a statement list is parsed whole before it runs.
    const result = await server.rt.db.transaction().execute(async (trx) => {
      await sql.raw(`set local standard_conforming_strings = ${conforming}`).execute(trx);
      return sql.raw<{ text: string; at: Date; n: number; none: null }>(text).execute(trx);
    });
    assert.deepEqual(result.rows, [{ text: hostile, at, n: 42, none: null }]);
  }
});
