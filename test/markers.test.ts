import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let alice: TestUser;
before(async () => {
  server = await startServer();
  alice = await server.user("alice");
});
after(() => server.close());

test("markers round-trip, with a version that counts every write", async () => {
  const empty = await server.get("/api/v1/markers", {
    token: alice.token,
    query: { "timeline[]": ["home", "notifications"] },
  });
  assert.equal(empty.status, 200);
  assert.deepEqual(empty.body, {});

  const set = await server.post("/api/v1/markers", {
    token: alice.token,
    form: { "home[last_read_id]": "109000000000000001", "notifications[last_read_id]": "109000000000000005" },
  });
  assert.equal(set.status, 200);
  assert.equal(set.body.home.last_read_id, "109000000000000001");
  assert.equal(set.body.home.version, 1);
  assert.match(set.body.home.updated_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.equal(set.body.notifications.last_read_id, "109000000000000005");

  const moved = await server.post("/api/v1/markers", {
    token: alice.token,
    json: { home: { last_read_id: "109000000000000009" } },
  });
  assert.deepEqual(Object.keys(moved.body), ["home"]);
  assert.equal(moved.body.home.last_read_id, "109000000000000009");
  assert.equal(moved.body.home.version, 2);

  const both = await server.get("/api/v1/markers", {
    token: alice.token,
    query: { "timeline[]": ["home", "notifications"] },
  });
  assert.equal(both.body.home.last_read_id, "109000000000000009");
  assert.equal(both.body.notifications.last_read_id, "109000000000000005");
  const onlyHome = await server.get("/api/v1/markers", { token: alice.token, query: { timeline: "home" } });
  assert.deepEqual(Object.keys(onlyHome.body), ["home"]);
});

test("racing apps: the newest position wins and every write is counted", async () => {
  const bob = await server.user("bob");
  const ids = ["109000000000000100", "109000000000000300", "109000000000000200"];
  await Promise.all(
    ids.map((id) => server.post("/api/v1/markers", { token: bob.token, json: { home: { last_read_id: id } } })),
  );
  const now = await server.get("/api/v1/markers", { token: bob.token, query: { timeline: "home" } });
  assert.equal(now.body.home.last_read_id, "109000000000000300");
  assert.equal(now.body.home.version, 3);
});

test("markers need a user token with the right scope, and valid ids", async () => {
  assert.equal((await server.get("/api/v1/markers")).status, 401);
  const readOnly = await server.user("reader", { scopes: ["read"] });
  const denied = await server.post("/api/v1/markers", { token: readOnly.token, json: { home: { last_read_id: "1" } } });
  assert.equal(denied.status, 403);
  assert.equal(denied.body.error, "This action is outside the authorized scopes");
  const bad = await server.post("/api/v1/markers", { token: alice.token, json: { home: { last_read_id: "abc" } } });
  assert.equal(bad.status, 422);
});

test("preferences come from the user's settings, with Mastodon's defaults", async () => {
  const res = await server.get("/api/v1/preferences", { token: alice.token });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, {
    "posting:default:visibility": "public",
    "posting:default:sensitive": false,
    "posting:default:language": null,
    "reading:expand:media": "default",
    "reading:expand:spoilers": false,
  });
  await server.rt.db
    .updateTable("users")
    .set({ settings: JSON.stringify({ default_privacy: "private", default_sensitive: true, default_language: "fr" }) })
    .where("id", "=", alice.userId)
    .execute();
  const changed = await server.get("/api/v1/preferences", { token: alice.token });
  assert.equal(changed.body["posting:default:visibility"], "private");
  assert.equal(changed.body["posting:default:sensitive"], true);
  assert.equal(changed.body["posting:default:language"], "fr");
});
