// Quote posts through the client API (Mastodon 4.5): quoting, who may quote, the quotes list,
// revoking, the notifications, the interaction policy and the account's default.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { assertEntity } from "./conformance.ts";
import { block, follow, freshUser, mute, notificationsOf, post } from "./fixtures.ts";
import { startServer, type TestServer } from "./rig.ts";

let server: TestServer;

before(async () => {
  server = await startServer();
});
after(() => server.close());

const NOT_QUOTABLE = "The post you are trying to quote does not appear to exist.";

test("a quote of a public post is accepted, notified, listed, counted, and revocable", async (t) => {
  const alice = await freshUser(server, "alice");
  const bob = await freshUser(server, "bob");
  const original = await post(server, alice, "quote me");
  assert.deepEqual(original.quote_approval, { automatic: ["public"], manual: [], current_user: "automatic" });
  const quoting = await post(server, bob, { status: "so true", quoted_status_id: original.id });
  assertEntity(t, "Status", quoting);
  assert.equal(quoting.quote.state, "accepted");
  assert.equal(quoting.quote.quoted_status.id, original.id);
  assertEntity(t, "Quote", quoting.quote);
  assert.equal(quoting.quote_approval.current_user, "automatic");

  const seen = await server.get(`/api/v1/statuses/${original.id}`, { token: bob.token });
  assert.equal(seen.body.quotes_count, 1);
  assert.equal(seen.body.quote_approval.current_user, "automatic");
  const notes = await notificationsOf(server, alice.accountId);
  assert.deepEqual(
    notes.map((n) => [n.type, n.from_account_id, n.status_id]),
    [["quote", bob.accountId, quoting.id]],
  );
  const api = await server.get("/api/v1/notifications", { token: alice.token });
  assert.equal(api.body[0].type, "quote");
  assert.equal(api.body[0].status.id, quoting.id);

  const list = await server.get(`/api/v1/statuses/${original.id}/quotes`, { token: alice.token });
  assert.equal(list.status, 200);
  assert.deepEqual(
    list.body.map((s: { id: string }) => s.id),
    [quoting.id],
  );
  // Only the quoted author lists them.
  const other = await server.get(`/api/v1/statuses/${original.id}/quotes`, { token: bob.token });
  assert.equal(other.status, 403);

  const notMine = await server.post(`/api/v1/statuses/${original.id}/quotes/${quoting.id}/revoke`, {
    token: bob.token,
  });
  assert.equal(notMine.status, 403);
  const revoked = await server.post(`/api/v1/statuses/${original.id}/quotes/${quoting.id}/revoke`, {
    token: alice.token,
  });
  assert.equal(revoked.status, 200, revoked.text);
  assert.equal(revoked.body.id, quoting.id);
  assert.deepEqual(revoked.body.quote, { state: "revoked", quoted_status: null });
  const after = await server.get(`/api/v1/statuses/${quoting.id}`, { token: bob.token });
  assert.equal(after.body.quote.state, "revoked");
  assert.equal((await server.get(`/api/v1/statuses/${original.id}`)).body.quotes_count, 0);
  assert.deepEqual((await server.get(`/api/v1/statuses/${original.id}/quotes`, { token: alice.token })).body, []);
});

test("quoting is refused for private, direct, nobody, followers-only and blocked posts", async () => {
  const alice = await freshUser(server, "alice");
  const bob = await freshUser(server, "bob");
  await follow(server, bob, alice);
  const refused = async (id: string, who = bob) => {
    const res = await server.post("/api/v1/statuses", {
      token: who.token,
      json: { status: "quoting", quoted_status_id: id },
    });
    assert.equal(res.status, 404, res.text);
    assert.deepEqual(res.body, { error: NOT_QUOTABLE });
  };
  const priv = await post(server, alice, { status: "followers only", visibility: "private" });
  assert.deepEqual(priv.quote_approval, { automatic: [], manual: [], current_user: "automatic" });
  await refused(priv.id);
  const direct = await post(server, alice, { status: `@${bob.username} hi`, visibility: "direct" });
  await refused(direct.id);
  const nobody = await post(server, alice, { status: "mine alone", quote_approval_policy: "nobody" });
  const asBob = await server.get(`/api/v1/statuses/${nobody.id}`, { token: bob.token });
  assert.deepEqual(asBob.body.quote_approval, { automatic: [], manual: [], current_user: "denied" });
  await refused(nobody.id);
  // Self-quotes are always allowed.
  const self = await post(server, alice, { status: "me again", quoted_status_id: nobody.id });
  assert.equal(self.quote.state, "accepted");

  const followers = await post(server, alice, { status: "followers may", quote_approval_policy: "followers" });
  const carol = await freshUser(server, "carol");
  await refused(followers.id, carol);
  const byFollower = await post(server, bob, { status: "I follow", quoted_status_id: followers.id });
  assert.equal(byFollower.quote.state, "accepted");

  const open = await post(server, alice, "open to all");
  await block(server, alice, carol);
  await refused(open.id, carol);
  const bad = await server.post("/api/v1/statuses", {
    token: bob.token,
    json: { status: "x", quote_approval_policy: "everyone" },
  });
  assert.equal(bad.status, 422);
});

test("a muted or blocked quoted author shows in the quote's state; a deleted quoted post as deleted", async () => {
  const alice = await freshUser(server, "alice");
  const bob = await freshUser(server, "bob");
  const carol = await freshUser(server, "carol");
  const original = await post(server, alice, "watch this");
  const quoting = await post(server, bob, { status: "look", quoted_status_id: original.id });
  await mute(server, carol, alice);
  const muted = await server.get(`/api/v1/statuses/${quoting.id}`, { token: carol.token });
  assert.equal(muted.body.quote.state, "muted_account");
  assert.equal(muted.body.quote.quoted_status.id, original.id);
  await block(server, carol, alice);
  const blocked = await server.get(`/api/v1/statuses/${quoting.id}`, { token: carol.token });
  assert.deepEqual(blocked.body.quote, { state: "blocked_account", quoted_status: null });
  assert.equal((await server.delete(`/api/v1/statuses/${original.id}`, { token: alice.token })).status, 200);
  const gone = await server.get(`/api/v1/statuses/${quoting.id}`, { token: bob.token });
  assert.deepEqual(gone.body.quote, { state: "deleted", quoted_status: null });
});

test("a quoted status's own quote is a ShallowQuote", async (t) => {
  const alice = await freshUser(server, "alice");
  const bob = await freshUser(server, "bob");
  const first = await post(server, alice, "first");
  const second = await post(server, bob, { status: "second", quoted_status_id: first.id });
  const third = await post(server, alice, { status: "third", quoted_status_id: second.id });
  assert.equal(third.quote.quoted_status.id, second.id);
  assert.deepEqual(third.quote.quoted_status.quote, { state: "accepted", quoted_status_id: first.id });
  assertEntity(t, "ShallowQuote", third.quote.quoted_status.quote);
});

test("editing the quoted post notifies the quoters (quoted_update); an edit can take the quote off", async () => {
  const alice = await freshUser(server, "alice");
  const bob = await freshUser(server, "bob");
  const original = await post(server, alice, "before");
  const quoting = await post(server, bob, { status: "quoting", quoted_status_id: original.id });
  const edit = await server.put(`/api/v1/statuses/${original.id}`, { token: alice.token, json: { status: "after" } });
  assert.equal(edit.status, 200, edit.text);
  await server.settle();
  const notes = await notificationsOf(server, bob.accountId);
  assert.deepEqual(
    notes.map((n) => [n.type, n.from_account_id, n.status_id]),
    [["quoted_update", alice.accountId, original.id]],
  );
  // An edit that does not name the quote keeps it; an empty one takes it off.
  const kept = await server.put(`/api/v1/statuses/${quoting.id}`, { token: bob.token, json: { status: "quoting!" } });
  assert.equal(kept.body.quote.state, "accepted");
  const removed = await server.put(`/api/v1/statuses/${quoting.id}`, {
    token: bob.token,
    json: { status: "quoting!", quoted_status_id: null },
  });
  assert.equal(removed.status, 200, removed.text);
  assert.equal(removed.body.quote, null);
  assert.equal((await server.get(`/api/v1/statuses/${original.id}`)).body.quotes_count, 0);
  const again = await server.put(`/api/v1/statuses/${quoting.id}`, {
    token: bob.token,
    json: { status: "quoting again", quoted_status_id: original.id },
  });
  assert.equal(again.body.quote.state, "accepted");
});

test("the interaction policy of a status, and the account's default quote policy", async (t) => {
  const alice = await freshUser(server, "alice");
  const bob = await freshUser(server, "bob");
  const s = await post(server, alice, "policy");
  const changed = await server.put(`/api/v1/statuses/${s.id}/interaction_policy`, {
    token: alice.token,
    json: { quote_approval_policy: "followers" },
  });
  assert.equal(changed.status, 200, changed.text);
  assertEntity(t, "Status", changed.body);
  assert.deepEqual(changed.body.quote_approval, { automatic: ["followers"], manual: [], current_user: "automatic" });
  const notOwn = await server.put(`/api/v1/statuses/${s.id}/interaction_policy`, {
    token: bob.token,
    json: { quote_approval_policy: "public" },
  });
  assert.equal(notOwn.status, 403);
  const asBob = await server.get(`/api/v1/statuses/${s.id}`, { token: bob.token });
  assert.equal(asBob.body.quote_approval.current_user, "denied");

  const creds = await server.patch("/api/v1/accounts/update_credentials", {
    token: alice.token,
    json: { source: { quote_policy: "nobody" } },
  });
  assert.equal(creds.status, 200, creds.text);
  assert.equal(creds.body.source.quote_policy, "nobody");
  const verified = await server.get("/api/v1/accounts/verify_credentials", { token: alice.token });
  assert.equal(verified.body.source.quote_policy, "nobody");
  const later = await post(server, alice, "by default");
  assert.deepEqual(later.quote_approval.automatic, []);
});

test("the public page of a quote shows the quoted post", async () => {
  const alice = await freshUser(server, "alice");
  const bob = await freshUser(server, "bob");
  const original = await post(server, alice, "the original words");
  const quoting = await post(server, bob, { status: "my take", quoted_status_id: original.id });
  const page = await server.get(`/@${bob.username}/${quoting.id}`);
  assert.equal(page.status, 200);
  assert.match(page.text, /<blockquote class="quote">[\s\S]*the original words[\s\S]*<\/blockquote>/);
});

test("a scheduled status keeps its quote and policy, and quotes when it is published", async () => {
  const alice = await freshUser(server, "alice");
  const bob = await freshUser(server, "bob");
  const original = await post(server, alice, "quote me later");
  const refused = await server.post("/api/v1/statuses", {
    token: bob.token,
    json: {
      status: "later",
      quoted_status_id: (await post(server, alice, { status: "no", quote_approval_policy: "nobody" })).id,
      scheduled_at: new Date(Date.now() + 600_000).toISOString(),
    },
  });
  assert.equal(refused.status, 404);
  const res = await server.post("/api/v1/statuses", {
    token: bob.token,
    json: {
      status: "later",
      quoted_status_id: original.id,
      quote_approval_policy: "followers",
      scheduled_at: new Date(Date.now() + 600_000).toISOString(),
    },
  });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.params.quoted_status_id, original.id);
  assert.equal(res.body.params.quote_approval_policy, "followers");
  await server.rt.db
    .updateTable("scheduled_statuses")
    .set({ scheduled_at: new Date(Date.now() - 1000) })
    .where("id", "=", res.body.id)
    .execute();
  await server.rt.db
    .updateTable("jobs")
    .set({ run_at: new Date() })
    .where("type", "=", "statuses.publish_scheduled")
    .execute();
  server.rt.queue.wake();
  await server.settle();
  const posted = await server.get(`/api/v1/accounts/${bob.accountId}/statuses`, { token: bob.token });
  assert.equal(posted.body[0].quote.quoted_status.id, original.id);
  assert.deepEqual(posted.body[0].quote_approval.automatic, ["followers"]);
});
