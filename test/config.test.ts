import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigError, loadConfig } from "../src/config.ts";

test("defaults: SQLite under ./data, 127.0.0.1:3000, http origin for localhost", () => {
  const c = loadConfig({});
  assert.equal(c.bind, "127.0.0.1");
  assert.equal(c.port, 3000);
  assert.equal(c.localDomain, "localhost:3000");
  assert.equal(c.origin, "http://localhost:3000");
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
