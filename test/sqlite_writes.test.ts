// SQLite's writers across the connections of a process (one per thread) wait their turn on the
// shared write lock without stopping their thread, instead of sleeping in SQLite's busy handler.
// The database here is a SQLite file of the test's own, whatever TEST_DATABASE_URL says.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { sql } from "kysely";
import { type Connection, openDatabase } from "../src/db/index.ts";
import { newWriteLock, releaseWritesOf } from "../src/db/sqlite_writes.ts";

const dir = mkdtempSync(join(tmpdir(), "rookery-writes-"));
after(() => rmSync(dir, { recursive: true, force: true }));

async function pair(name: string): Promise<[Connection, Connection]> {
  const url = `sqlite:${join(dir, name)}`;
  const lock = newWriteLock();
  const a = await openDatabase(url, { sqliteWriteLock: lock, sqliteCheckpoints: false });
  const b = await openDatabase(url, { sqliteWriteLock: lock, sqliteCheckpoints: false });
  await sql`create table notes (id integer primary key, body text not null)`.execute(a.db);
  return [a, b];
}

/** A transaction on `c` that has written `body` and stays open until `release()`. */
async function heldTransaction(c: Connection, body: string): Promise<{ release: () => void; done: Promise<void> }> {
  let release!: () => void;
  const held = new Promise<void>((r) => {
    release = r;
  });
  let written!: () => void;
  const inserted = new Promise<void>((r) => {
    written = r;
  });
  const done = c.db.transaction().execute(async (trx) => {
    await sql`insert into notes (body) values (${body})`.execute(trx);
    written();
    await held;
  });
  await inserted;
  return { release, done };
}

test("a write waits for another connection's transaction while its thread goes on working", {
  timeout: 15_000,
}, async () => {
  const [a, b] = await pair("wait.sqlite");
  try {
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    const transaction = await heldTransaction(a, "first");
    let wrote = false;
    const write = sql`insert into notes (body) values ('second')`.execute(b.db).then(() => {
      wrote = true;
    });
    // Without the lock, this thread would sleep in SQLite's busy handler, its timers stopped, until
    // the write failed ("database is locked") five seconds later: the transaction could never end.
    const from = ticks;
    while (ticks < from + 5) await new Promise((r) => setTimeout(r, 10));
    assert.equal(wrote, false, "the write waits for the transaction");
    transaction.release();
    await transaction.done;
    await write;
    clearInterval(ticker);
    const rows = await sql<{ body: string }>`select body from notes order by id`.execute(b.db);
    assert.deepEqual(
      rows.rows.map((r) => r.body),
      ["first", "second"],
    );
  } finally {
    await a.close();
    await b.close();
  }
});

test("reads do not wait for another connection's transaction", async () => {
  const [a, b] = await pair("reads.sqlite");
  try {
    const transaction = await heldTransaction(a, "uncommitted");
    const read = await b.db
      .selectFrom("notes" as never)
      .select(sql<number>`count(*)`.as("n"))
      .executeTakeFirst();
    assert.deepEqual(read, { n: 0 });
    transaction.release();
    await transaction.done;
  } finally {
    await a.close();
    await b.close();
  }
});

test("the lock of a thread that ended while writing is given back", () => {
  const lock = newWriteLock();
  const word = new Int32Array(lock);
  // Thread 7 held it when it ended (the first word names the holder's thread id plus one).
  Atomics.store(word, 0, 8);
  releaseWritesOf(lock, 6);
  assert.equal(Atomics.load(word, 0), 8, "another thread's hold stays");
  releaseWritesOf(lock, 7);
  assert.equal(Atomics.load(word, 0), 0);
});
