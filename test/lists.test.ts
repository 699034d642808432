// Lists and their members.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { assertEntity } from "./conformance.ts";
import { follow } from "./fixtures.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let alice: TestUser;
let others: TestUser[];

before(async () => {
  server = await startServer();
  alice = await server.user("alice");
  others = [];
  for (const name of ["bob", "carol", "dave", "erin"]) others.push(await server.user(name));
  for (const o of others.slice(0, 3)) await follow(server, alice, o);
});
after(() => server.close());

test("create, read, update and delete a list", async (t) => {
  const created = await server.post("/api/v1/lists", {
    token: alice.token,
    form: { title: "Friends", replies_policy: "followed", exclusive: "true" },
  });
  assert.equal(created.status, 200);
  assertEntity(t, "List", created.body);
  assert.deepEqual(
    { ...created.body, id: undefined },
    { id: undefined, title: "Friends", replies_policy: "followed", exclusive: true },
  );
  const defaults = await server.post("/api/v1/lists", { token: alice.token, json: { title: "Work" } });
  assert.equal(defaults.body.replies_policy, "list");
  assert.equal(defaults.body.exclusive, false);

  const updated = await server.put(`/api/v1/lists/${created.body.id}`, {
    token: alice.token,
    json: { title: "Close friends", exclusive: false },
  });
  assert.deepEqual(
    [updated.body.title, updated.body.exclusive, updated.body.replies_policy],
    ["Close friends", false, "followed"],
  );
  const all = await server.get("/api/v1/lists", { token: alice.token });
  assert.deepEqual(
    all.body.map((l: { title: string }) => l.title),
    ["Close friends", "Work"],
  );
  assert.equal(all.headers.get("link"), null);

  const bob = others[0];
  assert.equal((await server.get(`/api/v1/lists/${created.body.id}`, { token: bob.token })).status, 404);
  assert.equal((await server.post("/api/v1/lists", { token: alice.token, json: { title: "" } })).status, 422);
  assert.equal(
    (await server.post("/api/v1/lists", { token: alice.token, json: { title: "x", replies_policy: "all" } })).status,
    422,
  );
  assert.deepEqual((await server.delete(`/api/v1/lists/${defaults.body.id}`, { token: alice.token })).body, {});
  assert.equal((await server.get(`/api/v1/lists/${defaults.body.id}`, { token: alice.token })).status, 404);
});

test("at most 50 lists: the 51st is a 422", async () => {
  const erin = others[3];
  for (let i = 0; i < 50; i++) {
    const res = await server.post("/api/v1/lists", { token: erin.token, json: { title: `List ${i}` } });
    assert.equal(res.status, 200);
  }
  const res = await server.post("/api/v1/lists", { token: erin.token, json: { title: "One too many" } });
  assert.equal(res.status, 422);
  assert.equal(res.body.error, "Validation failed: You have reached the maximum number of lists");
  assert.equal((await server.get("/api/v1/lists", { token: erin.token })).body.length, 50);
});

test("only followed accounts can be members; limit=0 gives them all; unfollowing removes them", async () => {
  const list = (await server.post("/api/v1/lists", { token: alice.token, json: { title: "Members" } })).body;
  const [bob, carol, dave, erin] = others;
  const add = await server.post(`/api/v1/lists/${list.id}/accounts`, {
    token: alice.token,
    form: { "account_ids[]": [bob.accountId, carol.accountId, dave.accountId] },
  });
  assert.deepEqual([add.status, add.body], [200, {}]);
  const notFollowed = await server.post(`/api/v1/lists/${list.id}/accounts`, {
    token: alice.token,
    json: { account_ids: [erin.accountId] },
  });
  assert.equal(notFollowed.status, 422);
  assert.equal(notFollowed.body.error, "Validation failed: Account must be followed");
  const again = await server.post(`/api/v1/lists/${list.id}/accounts`, {
    token: alice.token,
    json: { account_ids: [bob.accountId] },
  });
  assert.equal(again.status, 422);

  const page = await server.get(`/api/v1/lists/${list.id}/accounts`, { token: alice.token, query: { limit: "2" } });
  assert.deepEqual(
    page.body.map((a: { username: string }) => a.username),
    ["dave", "carol"],
  );
  assert.match(page.headers.get("link")!, /rel="next"/);
  const everyone = await server.get(`/api/v1/lists/${list.id}/accounts`, { token: alice.token, query: { limit: "0" } });
  assert.deepEqual(
    everyone.body.map((a: { username: string }) => a.username),
    ["dave", "carol", "bob"],
  );
  assert.equal(everyone.headers.get("link"), null);

  const containing = await server.get(`/api/v1/accounts/${bob.accountId}/lists`, { token: alice.token });
  assert.deepEqual(
    containing.body.map((l: { id: string }) => l.id),
    [list.id],
  );

  await server.delete(`/api/v1/lists/${list.id}/accounts`, {
    token: alice.token,
    form: { "account_ids[]": [bob.accountId] },
  });
  await server.rt.db
    .deleteFrom("follows")
    .where("account_id", "=", alice.accountId)
    .where("target_account_id", "=", carol.accountId)
    .execute();
  const left = await server.get(`/api/v1/lists/${list.id}/accounts`, { token: alice.token });
  assert.deepEqual(
    left.body.map((a: { username: string }) => a.username),
    ["dave"],
  );
});

test("lists need the lists scopes and a user", async () => {
  const reader = await server.user("reader", { scopes: ["read"] });
  assert.equal((await server.get("/api/v1/lists", { token: reader.token })).status, 200);
  assert.equal((await server.post("/api/v1/lists", { token: reader.token, json: { title: "x" } })).status, 403);
  assert.equal((await server.get("/api/v1/lists")).status, 401);
});
