// Pins across two Rookery servers: an account seen for the first time shows the posts it pinned on
// its server (its featured collection, read by a job), and a pin or unpin (Add or Remove to the
// featured collection, sent to the followers' servers) appears and disappears on the other side.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { lookupRemote, settleAll, startFederatedServers, warmActor } from "./federation_rig.ts";
import { post } from "./fixtures.ts";
import type { TestServer, TestUser } from "./rig.ts";

let a: TestServer;
let b: TestServer;
let alice: TestUser; // on a
let bob: TestUser; // on b

before(async () => {
  [a, b] = await startFederatedServers(2);
  alice = await a.user("alice");
  bob = await b.user("bob");
  await warmActor(a, alice);
  await warmActor(b, bob);
});
after(async () => {
  await Promise.all([a?.close(), b?.close()]);
});

const settle = () => settleAll([a, b]);

async function pinnedOn(server: TestServer, viewer: TestUser, accountId: string): Promise<string[]> {
  const res = await server.get(`/api/v1/accounts/${accountId}/statuses`, {
    token: viewer.token,
    query: { pinned: "true" },
  });
  assert.equal(res.status, 200, res.text);
  return res.body.map((s: { content: string }) => s.content);
}

async function pin(server: TestServer, user: TestUser, id: string, action: "pin" | "unpin" = "pin") {
  const res = await server.post(`/api/v1/statuses/${id}/${action}`, { token: user.token });
  assert.equal(res.status, 200, res.text);
}

test("an account seen for the first time shows the posts it pinned on its server", async () => {
  const older = await post(b, bob, "Read this first");
  const newer = await post(b, bob, "And this");
  await post(b, bob, "Not pinned");
  await pin(b, bob, older.id);
  await pin(b, bob, newer.id);
  const bobOnA = await lookupRemote(a, alice, b, bob);
  await settle();
  assert.deepEqual(await pinnedOn(a, alice, bobOnA.id), ["<p>And this</p>", "<p>Read this first</p>"]);
});

test("a pin and an unpin reach the followers' server", async () => {
  const aliceOnB = await lookupRemote(b, bob, a, alice);
  assert.equal((await b.post(`/api/v1/accounts/${aliceOnB.id}/follow`, { token: bob.token })).status, 200);
  await settle();
  const status = await post(a, alice, "Pinned for my followers");
  await settle();
  assert.deepEqual(await pinnedOn(b, bob, aliceOnB.id), []);

  await pin(a, alice, status.id);
  await settle();
  assert.deepEqual(await pinnedOn(b, bob, aliceOnB.id), ["<p>Pinned for my followers</p>"]);

  await pin(a, alice, status.id, "unpin");
  await settle();
  assert.deepEqual(await pinnedOn(b, bob, aliceOnB.id), []);
});
