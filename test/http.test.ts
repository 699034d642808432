// The rules every HTTP answer follows.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createApp } from "../src/app.ts";
import { startServer, type TestServer } from "./rig.ts";

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.close());

test("removed Mastodon endpoints stay removed", async () => {
  for (const path of [
    "/api/v1/search",
    "/api/v1/statuses/123/card",
    "/api/v1/timelines/direct",
    "/api/salmon/1",
    "/api/push",
  ]) {
    const res = await server.get(path);
    assert.equal(res.status, 404, path);
    assert.deepEqual(res.body, { error: "Record not found" }, path);
  }
});

test("API answers are never cached and carry CORS and a request id", async () => {
  const res = await server.get("/api/v1/timelines/public", {
    headers: { origin: "https://elk.zone", "x-request-id": "abc-123" },
  });
  assert.equal(res.headers.get("cache-control"), "no-store");
  assert.equal(res.headers.get("access-control-allow-origin"), "*");
  const exposed = res.headers
    .get("access-control-expose-headers")!
    .split(",")
    .map((s) => s.trim());
  for (const h of [
    "Link",
    "X-RateLimit-Limit",
    "X-RateLimit-Remaining",
    "X-RateLimit-Reset",
    "Mastodon-Async-Refresh",
  ]) {
    assert.ok(exposed.includes(h), h);
  }
  assert.equal(res.headers.get("x-request-id"), "abc-123");
  const missing = await server.get("/api/v1/nothing-here");
  assert.equal(missing.headers.get("cache-control"), "no-store");
  assert.match(missing.headers.get("x-request-id")!, /^[0-9a-f-]{36}$/);
});

test("a CORS preflight is answered", async () => {
  const res = await server.request("OPTIONS", "/api/v1/statuses", {
    headers: {
      origin: "https://elk.zone",
      "access-control-request-method": "POST",
      "access-control-request-headers": "authorization, content-type",
    },
  });
  assert.equal(res.status, 204);
  assert.equal(res.headers.get("access-control-allow-origin"), "*");
  assert.match(res.headers.get("access-control-allow-methods")!, /POST/);
  assert.match(res.headers.get("access-control-allow-headers")!, /Authorization/i);
});

test("an unexpected error is a 500 with a request id and no internals", async () => {
  const app = createApp(server.rt);
  app.get("/api/v1/explode", () => {
    throw new Error("secret internal detail");
  });
  const res = await app.request("/api/v1/explode", { headers: { "x-request-id": "req-42" } });
  assert.equal(res.status, 500);
  const body = await res.json();
  assert.deepEqual(body, { error: "Internal server error (request req-42)" });
  assert.equal(res.headers.get("cache-control"), "no-store");
});

test("broken JSON is a 400 on a real endpoint; wrong types are 422, never 500", async () => {
  const broken = await server.post("/api/v1/apps", { body: "{nope", headers: { "content-type": "application/json" } });
  assert.equal(broken.status, 400);
  assert.match(broken.body.error, /invalid JSON/);
  const user = await server.user("typer");
  const wrong = await server.post("/api/v1/markers", {
    token: user.token,
    json: { home: { last_read_id: { nested: true } } },
  });
  assert.equal(wrong.status, 422);
});
