// Plans of queries that must stay cheap as the tables grow. SQLite plans without statistics (Rookery
// does not ANALYZE), so an index that matches a condition by its form is taken even where the
// condition selects nearly every row: the index of boosts once served `reblog_of_id is null`, and a
// page of the public timeline read and sorted every status (2 s at 200,000 statuses). The indexes
// of boosts and replies now hold only those, so they cannot.
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { after, before, test } from "node:test";
import { CompiledQuery } from "kysely";
import { NodeSqliteDatabase } from "../src/db/sqlite.ts";
import { post } from "./fixtures.ts";
import { dialectUnderTest, startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let alice: TestUser;

before(async () => {
  server = await startServer();
  alice = await server.user("alice");
  const first = await post(server, alice, "a first post");
  await post(server, alice, "a second post");
  const boost = await server.post(`/api/v1/statuses/${first.id}/reblog`, { token: alice.token });
  assert.equal(boost.status, 200, boost.text);
});

after(() => server.close());

/** The SQL texts SQLite is given while `run` runs. */
async function statementsOf(run: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const prepare = NodeSqliteDatabase.prototype.prepare;
  NodeSqliteDatabase.prototype.prepare = function (this: NodeSqliteDatabase, text: string) {
    seen.push(text);
    return prepare.call(this, text);
  };
  try {
    await run();
  } finally {
    NodeSqliteDatabase.prototype.prepare = prepare;
  }
  return seen;
}

test("a page of the public timelines walks statuses newest first, without sorting them", async (t) => {
  if (dialectUnderTest !== "sqlite") return t.skip("PostgreSQL plans from its statistics");
  const paths = [
    ["/api/v1/timelines/public", undefined],
    ["/api/v1/timelines/public?local=true", alice.token],
  ] as const;
  const pages: string[] = [];
  for (const [path, token] of paths) {
    const statements = await statementsOf(async () => {
      const res = await server.get(path, { token });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        res.body.map((s: { content: string }) => s.content),
        ["<p>a second post</p>", "<p>a first post</p>"],
      );
    });
    const page = statements.find((s) => s.includes(`"s"."visibility" = ?`) && /order by "s"."id" desc/.test(s));
    assert.ok(page, `no page query among ${statements.length} statements of ${path}`);
    pages.push(page);
  }
  const db = new DatabaseSync(server.rt.config.databaseUrl.slice("sqlite:".length), { readOnly: true });
  try {
    for (const page of pages) {
      const plan = db
        .prepare(`explain query plan ${page}`)
        .all()
        .map((row) => String(row.detail));
      // The index of public statuses, or the primary key on a table as small as this one.
      assert.match(plan[0], /^SCAN s USING INDEX (statuses_public|sqlite_autoindex_statuses_1)$/, plan.join("\n"));
      assert.ok(!plan.some((step) => step.includes("TEMP B-TREE")), plan.join("\n"));
    }
  } finally {
    db.close();
  }
});

test("a home page asks the indexes of exceptions, not every status and author on it", async (t) => {
  if (dialectUnderTest !== "sqlite") return t.skip("PostgreSQL plans from its statistics");
  const statements = await statementsOf(async () => {
    const res = await server.get("/api/v1/timelines/home", { token: alice.token });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.length, 3);
  });
  const page = statements.find((s) => s.includes("from feed_entries e"));
  assert.ok(page, `no feed page among ${statements.length} statements`);
  const db = new DatabaseSync(server.rt.config.databaseUrl.slice("sqlite:".length), { readOnly: true });
  try {
    const plan = db
      .prepare(`explain query plan ${page}`)
      .all(...Array.from({ length: (page.match(/\?/g) ?? []).length }, () => 1))
      .map((row) => String(row.detail));
    const lookups = plan.filter((step) => / (vx|vsu) /.test(step));
    assert.deepEqual(lookups, [
      "SEARCH vx USING INDEX statuses_exceptions (id=?)",
      "SEARCH vsu USING INDEX accounts_suspended (id=?)",
    ]);
  } finally {
    db.close();
  }
});

test("a home page with a boost looks its statuses up one by one, never hashing the table", async (t) => {
  if (dialectUnderTest !== "postgres") return t.skip("SQLite has no hashed subplans");
  const [bob, carol] = [await server.user("bob"), await server.user("carol")];
  await server.post(`/api/v1/accounts/${alice.accountId}/follow`, { token: bob.token });
  const boosted = await post(server, carol, "boosted into bob's home");
  await server.post(`/api/v1/statuses/${boosted.id}/reblog`, { token: alice.token });
  await server.settle();
  const seen: CompiledQuery[] = [];
  const db = server.rt.db;
  const execute = db.executeQuery.bind(db);
  db.executeQuery = ((query: CompiledQuery) => {
    seen.push(query);
    return execute(query);
  }) as typeof db.executeQuery;
  try {
    const res = await server.get("/api/v1/timelines/home", { token: bob.token });
    assert.equal(res.status, 200, res.text);
    assert.ok(
      res.body.some((s: { reblog: unknown }) => s.reblog),
      "the page holds a boost",
    );
  } finally {
    db.executeQuery = execute;
  }
  const page = seen.find((q) => q.sql.includes("from feed_entries e"));
  assert.ok(page, "no feed page was read");
  const { rows } = await execute<{ "QUERY PLAN": string }>(
    CompiledQuery.raw(`explain (costs off) ${page.sql}`, [...page.parameters]),
  );
  const plan = rows.map((r) => r["QUERY PLAN"]);
  // What each hashed subplan reads: the first scan under its "SubPlan N".
  const hashed = plan.flatMap((line) => [...line.matchAll(/hashed SubPlan (\d+)/g)].map((m) => m[1]));
  for (const n of hashed) {
    const at = plan.findIndex((line) => line.trim() === `SubPlan ${n}`);
    assert.doesNotMatch(plan[at + 1] ?? "", / on statuses /, plan.join("\n"));
  }
});

test("the indexes of boosts and of replies hold only those", async () => {
  for (const [index, column] of [
    ["statuses_reblog", "reblog_of_id"],
    ["statuses_reply", "in_reply_to_id"],
  ]) {
    const definition =
      dialectUnderTest === "sqlite"
        ? await server.rt.db
            .selectFrom("sqlite_master" as never)
            .select("sql" as never)
            .where("name" as never, "=", index as never)
            .executeTakeFirstOrThrow()
        : await server.rt.db
            .selectFrom("pg_indexes" as never)
            .select("indexdef as sql" as never)
            .where("indexname" as never, "=", index as never)
            .where("schemaname" as never, "=", server.schema as never)
            .executeTakeFirstOrThrow();
    const where = new RegExp(`where \\(?"?${column}"? is not null\\)?`, "i");
    assert.match(String((definition as { sql: string }).sql), where);
  }
});
