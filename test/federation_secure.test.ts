// Secure mode (AUTHORIZED_FETCH): statuses and collections answer signed requests only, actors
// stay readable (their keys check the signatures), and two servers in secure mode still federate.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { lookupRemote, settleAll, startFederatedServers } from "./federation_rig.ts";
import { post } from "./fixtures.ts";
import type { TestServer, TestUser } from "./rig.ts";

let a: TestServer;
let b: TestServer;
let alice: TestUser;
let bob: TestUser;
const AS = { accept: "application/activity+json" };

before(async () => {
  [a, b] = await startFederatedServers(2, { env: { AUTHORIZED_FETCH: "true" } });
  alice = await a.user("alice");
  bob = await b.user("bob");
});
after(async () => {
  await Promise.all([a?.close(), b?.close()]);
});

test("unsigned reads of actors, statuses and collections are refused; the instance actor is served", async () => {
  const status = await post(a, alice, "Signed readers only");
  assert.equal((await a.get(`/users/alice/statuses/${status.id}`, { headers: AS })).status, 401);
  assert.equal((await a.get("/users/alice/followers", { headers: AS })).status, 401);
  assert.equal((await a.get("/users/alice", { headers: AS })).status, 401);
  assert.equal((await a.get("/actor", { headers: AS })).status, 200);
});

test("two servers in secure mode look each other up, follow and see posts", async () => {
  const bobOnA = await lookupRemote(a, alice, b, bob);
  assert.equal((await a.post(`/api/v1/accounts/${bobOnA.id}/follow`, { token: alice.token })).status, 200);
  await settleAll([a, b]);
  const status = await post(b, bob, "Hello, secure world");
  await settleAll([a, b]);
  const home = await a.get("/api/v1/timelines/home", { token: alice.token });
  assert.ok(home.body.some((s: any) => s.uri === status.uri));
  // A status URL is fetched signed, by the instance actor.
  const other = await post(b, bob, "Fetch me");
  const found = await a.get("/api/v2/search", { token: alice.token, query: { q: other.uri, resolve: "true" } });
  assert.deepEqual(
    found.body.statuses.map((s: any) => s.uri),
    [other.uri],
  );
});
