import assert from "node:assert/strict";
import { availableParallelism } from "node:os";
import { test } from "node:test";
import { ConfigError, loadConfig } from "../src/config.ts";
import { heapLimits, threadsThatFit } from "../src/memory.ts";

test("defaults: SQLite under ./data, 127.0.0.1:3000, http origin for the loopback address", () => {
  const c = loadConfig({});
  assert.equal(c.bind, "127.0.0.1");
  assert.equal(c.port, 3000);
  // An address with dots, which web clients (Phanpy) accept, and the one the server listens on.
  assert.equal(c.localDomain, "127.0.0.1:3000");
  assert.equal(c.origin, "http://127.0.0.1:3000");
  assert.equal(c.site.title, "127.0.0.1:3000");
  assert.equal(loadConfig({ PORT: "4000" }).origin, "http://127.0.0.1:4000");
  assert.match(c.databaseUrl, /^sqlite:.*\/data\/rookery\.sqlite$/);
  assert.equal(c.redisUrl, null);
  assert.equal(c.limits.statusChars, 500);
  assert.equal(c.registrations.mode, "approved");
});

test("a public domain gets an https origin; WEB_DOMAIN overrides where URLs point", () => {
  const c = loadConfig({ LOCAL_DOMAIN: "example.com", WEB_DOMAIN: "social.example.com" });
  assert.equal(c.localDomain, "example.com");
  assert.equal(c.origin, "https://social.example.com");
});

test("a wrong value stops the start with one line naming the variable", () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ PORT: "http" }, /^PORT="http": /],
    [{ DATABASE_URL: "mysql://x" }, /^DATABASE_URL=.*postgres:\/\//],
    [{ LOCAL_DOMAIN: "https://example.com/" }, /^LOCAL_DOMAIN=/],
    [{ REGISTRATIONS_MODE: "sometimes" }, /^REGISTRATIONS_MODE=/],
    [{ PUBLIC_PREVIEW: "maybe" }, /^PUBLIC_PREVIEW=/],
    [{ SMTP_URL: "smtp://mail" }, /SMTP_FROM/],
  ];
  for (const [env, message] of cases) {
    assert.throws(
      () => loadConfig(env),
      (e: unknown) => e instanceof ConfigError && message.test(e.message) && !e.message.includes("\n"),
      JSON.stringify(env),
    );
  }
});

test("web threads: one per core (at most 4), leaving a core to PostgreSQL on the same machine, as many as memory holds", () => {
  // MEMORY_LIMIT's default, 512 MB, holds three.
  const cores = Math.min(availableParallelism(), 3);
  const threads = (env: Record<string, string>) => loadConfig(env).webThreads;
  assert.equal(threads({}), Math.min(cores, 4));
  assert.equal(threads({ DATABASE_URL: "postgres://rookery@db.example.com:5432/rookery" }), Math.min(cores, 4));
  assert.equal(threads({ MEMORY_LIMIT: "256" }), 1);
  assert.equal(threads({ MEMORY_LIMIT: "256", WEB_THREADS: "2" }), 2);
  const local = Math.max(1, Math.min(cores - 1, 4));
  for (const url of [
    "postgres://rookery@127.0.0.1:5432/rookery",
    "postgres://rookery@localhost/rookery",
    "postgres://rookery@[::1]:5432/rookery",
    "postgres://rookery@%2Fvar%2Frun%2Fpostgresql/rookery",
    "postgresql:///rookery?host=/var/run/postgresql",
  ]) {
    assert.equal(threads({ DATABASE_URL: url }), local, url);
  }
  assert.equal(threads({ DATABASE_URL: "postgres://rookery@127.0.0.1/rookery", WEB_THREADS: "3" }), 3);
});

test("memory: MEMORY_LIMIT shares out the heap limits; out-of-range settings are refused", () => {
  const { memory } = loadConfig({});
  assert.deepEqual(memory, {
    limitMb: 512,
    shedAt: 0.9,
    renderCacheEntries: 5000,
    sqliteCacheMb: 8,
    sqliteMmapMb: 0,
    sqliteStatements: 200,
  });
  assert.equal(loadConfig({ SQLITE_STATEMENTS: "50" }).memory.sqliteStatements, 50);
  assert.deepEqual(heapLimits(memory, 2), {
    mainOldMb: 205,
    mainSemiMb: 8,
    growingPercent: null,
    thread: { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 24 },
  });
  assert.deepEqual(heapLimits(loadConfig({ MEMORY_LIMIT: "2048" }).memory, 2), {
    mainOldMb: 819,
    mainSemiMb: 8,
    growingPercent: null,
    thread: { maxOldGenerationSizeMb: 512, maxYoungGenerationSizeMb: 24 },
  });
  assert.equal(heapLimits(memory, 1).mainSemiMb, 32, "a thread serving alone has the others' young generation");
  assert.equal(heapLimits(memory, 1).growingPercent, 100, "and its old generation grows 2× between full collections");
  assert.equal(heapLimits(loadConfig({ MEMORY_LIMIT: "256" }).memory, 1).mainSemiMb, 8);
  assert.equal(threadsThatFit(200), 1);
  assert.equal(threadsThatFit(310), 2);
  assert.throws(() => loadConfig({ MEMORY_LIMIT: "64" }), /MEMORY_LIMIT/);
  assert.throws(() => loadConfig({ MEMORY_SHED_AT: "1.5" }), /MEMORY_SHED_AT/);
  assert.throws(() => loadConfig({ SQLITE_STATEMENTS: "0" }), /SQLITE_STATEMENTS/);
});
