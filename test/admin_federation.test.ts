// Moderation across servers: suspending a local account tells its followers' servers, which
// suspend their copy (Mastodon's Delete of the actor); lifting the suspension sends the actor again.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { lookupRemote, settleAll, startFederatedServers } from "./federation_rig.ts";
import type { TestServer, TestUser } from "./rig.ts";

let a: TestServer;
let b: TestServer;
let alice: TestUser; // on a
let admin: TestUser; // on a
let bob: TestUser; // on b
let aliceOnB: string;

before(async () => {
  [a, b] = await startFederatedServers(2);
  alice = await a.user("alice");
  admin = await a.user("admin", { role: "admin", scopes: ["admin:read", "admin:write"] });
  bob = await b.user("bob");
  aliceOnB = (await lookupRemote(b, bob, a, alice)).id;
  assert.equal((await b.post(`/api/v1/accounts/${aliceOnB}/follow`, { token: bob.token })).status, 200);
  await settleAll([a, b]);
});
after(async () => {
  await Promise.all([a?.close(), b?.close()]);
});

test("a suspension reaches the servers of the account's followers", async () => {
  assert.equal((await b.get(`/api/v1/accounts/${aliceOnB}`, { token: bob.token })).status, 200);
  const res = await a.post(`/api/v1/admin/accounts/${alice.accountId}/action`, {
    token: admin.token,
    json: { type: "suspend" },
  });
  assert.equal(res.status, 200, res.text);
  await settleAll([a, b]);
  assert.equal((await b.get(`/api/v1/accounts/${aliceOnB}`, { token: bob.token })).status, 410);
});
