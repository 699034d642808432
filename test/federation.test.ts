// Two Rookery servers federating end to end, through each side's HTTP API as people would use it:
// following (open and locked accounts), posting, replying, mentioning, direct messages, boosts,
// favourites, edits, deletes, poll votes, profile updates, unfollowing and blocking.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { lookupRemote, settleAll, startFederatedServers } from "./federation_rig.ts";
import { post } from "./fixtures.ts";
import type { TestServer, TestUser } from "./rig.ts";

let a: TestServer;
let b: TestServer;
let alice: TestUser; // on a
let bob: TestUser; // on b
let carol: TestUser; // on b, locked
let bobOnA: string; // bob's account id on a
let aliceOnB: string; // alice's account id on b

before(async () => {
  [a, b] = await startFederatedServers(2);
  alice = await a.user("alice");
  bob = await b.user("bob");
  carol = await b.user("carol");
  await b.patch("/api/v1/accounts/update_credentials", { token: carol.token, json: { locked: true } });
});
after(async () => {
  await Promise.all([a?.close(), b?.close()]);
});

const settle = () => settleAll([a, b]);

async function relationship(server: TestServer, user: TestUser, id: string) {
  const res = await server.get("/api/v1/accounts/relationships", { token: user.token, query: { "id[]": id } });
  assert.equal(res.status, 200, res.text);
  return res.body[0];
}

test("looking up user@domain fetches the remote account", async () => {
  const found = await lookupRemote(a, alice, b, bob);
  const host = new URL(b.url).host;
  assert.equal(found.acct, `bob@${host}`);
  assert.equal(found.uri, `${b.url}/users/bob`);
  assert.equal(found.url, `${b.url}/@bob`);
  bobOnA = found.id;
  aliceOnB = (await lookupRemote(b, bob, a, alice)).id;
});

test("following an open remote account: requested until the Accept arrives", async () => {
  const res = await a.post(`/api/v1/accounts/${bobOnA}/follow`, { token: alice.token });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.requested, true);
  assert.equal(res.body.following, false);
  await settle();
  const rel = await relationship(a, alice, bobOnA);
  assert.equal(rel.following, true);
  assert.equal(rel.requested, false);
  // Bob's side has alice as a follower.
  assert.equal((await relationship(b, bob, aliceOnB)).followed_by, true);
  const followers = await b.get(`/api/v1/accounts/${bob.accountId}/followers`, { token: bob.token });
  assert.deepEqual(
    followers.body.map((x: any) => x.id),
    [aliceOnB],
  );
});

test("following a locked remote account waits for its owner", async () => {
  const res = await a.post("/api/v1/follows", { token: alice.token, json: { uri: `carol@${new URL(b.url).host}` } });
  assert.equal(res.status, 200, res.text);
  const carolOnA = res.body.id;
  await settle();
  assert.equal((await relationship(a, alice, carolOnA)).requested, true);
  const requests = await b.get("/api/v1/follow_requests", { token: carol.token });
  assert.equal(requests.body.length, 1);
  assert.equal(requests.body[0].acct, `alice@${new URL(a.url).host}`);
  const ok = await b.post(`/api/v1/follow_requests/${requests.body[0].id}/authorize`, { token: carol.token });
  assert.equal(ok.status, 200, ok.text);
  await settle();
  const rel = await relationship(a, alice, carolOnA);
  assert.equal(rel.following, true);
  assert.equal(rel.requested, false);
});

test("a post reaches the home feed of a remote follower", async () => {
  const status = await post(b, bob, "Hello from b #birds");
  await settle();
  const home = await a.get("/api/v1/timelines/home", { token: alice.token });
  const found = home.body.find((s: any) => s.uri === status.uri);
  assert.ok(found, `not in the home feed: ${home.text.slice(0, 500)}`);
  assert.match(found.content, /Hello from b/);
  assert.equal(found.account.id, bobOnA);
  assert.equal(found.url, status.url);
});
