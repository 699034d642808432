// The database layer on the dialect under test: migrations, the row shape both dialects share,
// transactions, and pagination.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { pageParams } from "../src/api/pagination.ts";
import { migrate } from "../src/db/index.ts";
import { pageResultOf, paginate } from "../src/db/paginate.ts";
import { NodeSqliteDatabase } from "../src/db/sqlite.ts";
import { newId } from "../src/domain/ids.ts";
import { dialectUnderTest, startServer, type TestServer } from "./rig.ts";

let server: TestServer;
before(async () => {
  server = await startServer({ worker: false });
});
after(() => server.close());

test(`migrations are applied once and are then up to date (${dialectUnderTest})`, async () => {
  assert.equal(server.rt.dialect, dialectUnderTest);
  assert.deepEqual(await migrate(server.rt.db, server.schema), []);
  const names = await server.rt.db
    .selectFrom("kysely_migration" as never)
    .select("name" as never)
    .execute();
  assert.ok(names.length >= 1);
});

test("rows look the same on both databases: string ids, booleans, Dates, parsed JSON", async () => {
  const { accountId, userId } = await server.user("shape");
  const account = await server.rt.db
    .selectFrom("accounts")
    .selectAll()
    .where("id", "=", accountId)
    .executeTakeFirstOrThrow();
  assert.equal(typeof account.id, "string");
  assert.equal(account.id, accountId);
  assert.equal(account.locked, false);
  assert.equal(account.discoverable, null);
  assert.ok(account.created_at instanceof Date);
  assert.deepEqual(account.fields, []);
  const user = await server.rt.db.selectFrom("users").selectAll().where("id", "=", userId).executeTakeFirstOrThrow();
  assert.deepEqual(user.settings, {});
  assert.equal(user.approved, true);
  const stats = await server.rt.db
    .selectFrom("account_stats")
    .selectAll()
    .where("account_id", "=", accountId)
    .executeTakeFirstOrThrow();
  assert.equal(stats.followers_count, 0);
  assert.equal(typeof stats.followers_count, "number");
  const count = await server.rt.db
    .selectFrom("accounts")
    .select((eb) => eb.fn.countAll().as("n"))
    .executeTakeFirstOrThrow();
  assert.equal(Number(count.n), 1);
  const max = await server.rt.db
    .selectFrom("accounts")
    .select((eb) => eb.fn.max("id").as("m"))
    .executeTakeFirstOrThrow();
  assert.equal(String(max.m), accountId);
});

test("lists of values in `in` and `not in` answer alike on both databases, empty ones too", async () => {
  const a = await server.user("listed_a");
  const b = await server.user("listed_b");
  const ids = async (op: "in" | "not in", values: string[]) =>
    (
      await server.rt.db
        .selectFrom("accounts")
        .select("username")
        .where("username", "like", "listed_%")
        .where("id", op, values)
        .orderBy("username")
        .execute()
    ).map((r) => r.username);
  assert.deepEqual(await ids("in", [a.accountId, b.accountId]), ["listed_a", "listed_b"]);
  assert.deepEqual(await ids("in", [b.accountId]), ["listed_b"]);
  assert.deepEqual(await ids("not in", [b.accountId]), ["listed_a"]);
  assert.deepEqual(await ids("in", []), []);
  assert.deepEqual(await ids("not in", []), ["listed_a", "listed_b"]);
  // Text with the characters an array literal escapes.
  const names = await server.rt.db
    .selectFrom("accounts")
    .select("username")
    .where("username", "in", ['a"b', "c,d", "listed_a", "{x}"])
    .execute();
  assert.deepEqual(names, [{ username: "listed_a" }]);
});

test("a failing transaction leaves nothing behind", async () => {
  const id = newId();
  await assert.rejects(
    server.rt.db.transaction().execute(async (trx) => {
      await trx
        .insertInto("rules")
        .values({ id, text: "Be kind", created_at: new Date(), updated_at: new Date() })
        .execute();
      throw new Error("boom");
    }),
    /boom/,
  );
  assert.equal(await server.rt.db.selectFrom("rules").select("id").where("id", "=", id).executeTakeFirst(), undefined);
});

test("pagination: max_id, since_id, min_id and limit as Mastodon reads them", async () => {
  const ids: string[] = [];
  for (let i = 0; i < 7; i++) {
    const id = newId();
    ids.push(id);
    await server.rt.db
      .insertInto("rules")
      .values({ id, text: `rule ${i}`, created_at: new Date(), updated_at: new Date() })
      .execute();
  }
  const q = () => server.rt.db.selectFrom("rules").selectAll();
  const page = (p: Record<string, string>) => paginate(q(), "id", pageParams(p));
  const desc = [...ids].reverse();

  const first = await page({ limit: "3" });
  assert.deepEqual(
    first.items.map((r) => r.id),
    desc.slice(0, 3),
  );
  assert.equal(first.next, desc[2]);
  assert.equal(first.prev, desc[0]);

  const second = await page({ limit: "3", max_id: first.next! });
  assert.deepEqual(
    second.items.map((r) => r.id),
    desc.slice(3, 6),
  );
  const last = await page({ limit: "3", max_id: second.next! });
  assert.deepEqual(
    last.items.map((r) => r.id),
    desc.slice(6),
  );
  assert.equal(last.next, null, "no next on the last page");

  // min_id: the page right after it, newest first; since_id: the newest page above it.
  const afterMin = await page({ limit: "2", min_id: ids[1] });
  assert.deepEqual(
    afterMin.items.map((r) => r.id),
    [ids[3], ids[2]],
  );
  const sinceMin = await page({ limit: "2", since_id: ids[1] });
  assert.deepEqual(
    sinceMin.items.map((r) => r.id),
    [ids[6], ids[5]],
  );

  const empty = await page({ max_id: ids[0] });
  assert.deepEqual(empty, { items: [], next: null, prev: null });
  assert.deepEqual(pageParams({ limit: "500" }).limit, 40);
  assert.deepEqual(pageParams({ limit: "0" }).limit, 1);
  assert.deepEqual(pageParams({ max_id: "garbage" }).maxId, null);
  assert.deepEqual(
    pageResultOf([{ id: "5" }], false, (r) => r.id),
    { items: [{ id: "5" }], next: null, prev: "5" },
  );
});

test("SQLite: under writes that never pause, the checkpoints keep the log from growing without end", {
  skip: dialectUnderTest !== "sqlite" && "SQLite only",
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), "rookery-log-"));
  const path = join(dir, "log.sqlite");
  // A log of 200 pages (800 KB) is restarted; the default is 64 MB.
  const db = new NodeSqliteDatabase(path, { restartLogAt: 200 });
  try {
    db.prepare("create table t (id integer primary key, v text)").run([]);
    const insert = db.prepare("insert into t (v) values (?)");
    const row = "x".repeat(2000);
    let written = 0;
    let log = 0;
    // Without restarts, the log holds every page written (more than `written`); with them, its file
    // only grows to what is written while a checkpoint waits. Written until it holds less than half
    // of at least 4 MB, for as long as a busy machine needs: up to a minute, or 64 MB.
    const deadline = Date.now() + 60_000;
    while (written < 4_000_000 || log >= written / 2) {
      assert.ok(Date.now() < deadline && written < 64_000_000, `log of ${log} bytes after ${written} bytes written`);
      db.prepare("begin").run([]);
      for (let i = 0; i < 10; i++) insert.run([row]);
      db.prepare("commit").run([]);
      written += 10 * row.length;
      await new Promise((resolve) => setTimeout(resolve, 1));
      log = statSync(`${path}-wal`).size;
    }
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
