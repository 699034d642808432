// Follows that wait for an answer: locked accounts, silenced followers, other servers.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { counts, freshUser, notificationsOf, remoteAccount, setAccount } from "./fixtures.ts";
import { startServer, type TestServer, type TestUser, type UserOptions } from "./rig.ts";

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.close());

const user = (name: string, options?: UserOptions) => freshUser(server, name, options);
const follow = (from: TestUser, toId: string, body: Record<string, unknown> = {}) =>
  server.post(`/api/v1/accounts/${toId}/follow`, { token: from.token, json: body });

async function lockedUser(name: string) {
  const u = await user(name);
  await setAccount(server, u.accountId, { locked: true });
  return u;
}

test("following a locked account asks, notifies it, and counts nothing yet", async () => {
  const alice = await user("alice");
  const locked = await lockedUser("locked");
  const res = await follow(alice, locked.accountId, { reblogs: false });
  assert.equal(res.status, 200);
  assert.equal(res.body.following, false);
  assert.equal(res.body.requested, true);
  assert.equal(res.body.showing_reblogs, false);
  assert.deepEqual(await counts(server, locked.accountId), [0, 0]);
  assert.deepEqual(await counts(server, alice.accountId), [0, 0]);
  assert.deepEqual(
    (await notificationsOf(server, locked.accountId)).map((x) => [x.type, x.from_account_id]),
    [["follow_request", alice.accountId]],
  );
  const seen = await server.get("/api/v1/accounts/relationships", {
    token: locked.token,
    query: { id: alice.accountId },
  });
  assert.equal(seen.body[0].requested_by, true);

  // Asking again changes the request's options, and sends no second notification.
  const again = await follow(alice, locked.accountId, { notify: true });
  assert.equal(again.body.requested, true);
  assert.equal(again.body.notifying, true);
  assert.equal(again.body.showing_reblogs, false);
  assert.equal((await notificationsOf(server, locked.accountId)).length, 1);
});

test("authorizing makes the follow, with its options, counters and a follow notification", async () => {
  const alice = await user("alice");
  const locked = await lockedUser("locked");
  await follow(alice, locked.accountId, { reblogs: false, languages: ["fr"] });
  const res = await server.post(`/api/v1/follow_requests/${alice.accountId}/authorize`, { token: locked.token });
  assert.equal(res.status, 200);
  assert.equal(res.body.id, alice.accountId);
  assert.equal(res.body.followed_by, true);
  assert.equal(res.body.requested_by, false);
  assert.deepEqual(await counts(server, locked.accountId), [1, 0]);
  assert.deepEqual(await counts(server, alice.accountId), [0, 1]);
  // The request's notification goes with the request; the follow brings its own.
  assert.deepEqual(
    (await notificationsOf(server, locked.accountId)).map((x) => [x.type, x.from_account_id]),
    [["follow", alice.accountId]],
  );
  const mine = await server.get("/api/v1/accounts/relationships", {
    token: alice.token,
    query: { id: locked.accountId },
  });
  assert.equal(mine.body[0].following, true);
  assert.equal(mine.body[0].requested, false);
  assert.equal(mine.body[0].showing_reblogs, false);
  assert.deepEqual(mine.body[0].languages, ["fr"]);

  const twice = await server.post(`/api/v1/follow_requests/${alice.accountId}/authorize`, { token: locked.token });
  assert.equal(twice.status, 404);
  assert.deepEqual(twice.body, { error: "Record not found" });
});

test("rejecting removes the request and changes nothing else", async () => {
  const alice = await user("alice");
  const locked = await lockedUser("locked");
  await follow(alice, locked.accountId);
  const res = await server.post(`/api/v1/follow_requests/${alice.accountId}/reject`, { token: locked.token });
  assert.equal(res.status, 200);
  assert.equal(res.body.requested_by, false);
  assert.equal(res.body.followed_by, false);
  assert.deepEqual(await counts(server, locked.accountId), [0, 0]);
  assert.deepEqual(await notificationsOf(server, locked.accountId), []);
  const mine = await server.get("/api/v1/accounts/relationships", {
    token: alice.token,
    query: { id: locked.accountId },
  });
  assert.equal(mine.body[0].requested, false);
  assert.equal(
    (await server.post(`/api/v1/follow_requests/${alice.accountId}/reject`, { token: locked.token })).status,
    404,
  );
  assert.equal((await server.post("/api/v1/follow_requests/1/reject", { token: locked.token })).status, 404);
});

test("unfollowing withdraws a pending request", async () => {
  const alice = await user("alice");
  const locked = await lockedUser("locked");
  await follow(alice, locked.accountId);
  const res = await server.post(`/api/v1/accounts/${locked.accountId}/unfollow`, { token: alice.token });
  assert.equal(res.body.requested, false);
  assert.deepEqual(await notificationsOf(server, locked.accountId), []);
  const list = await server.get("/api/v1/follow_requests", { token: locked.token });
  assert.deepEqual(list.body, []);
});

test("the request list pages by request, newest first, leaving out suspended accounts", async () => {
  const locked = await lockedUser("locked");
  const askers: TestUser[] = [];
  for (let i = 0; i < 4; i++) {
    const asker = await user("asker");
    askers.push(asker);
    await follow(asker, locked.accountId);
  }
  await setAccount(server, askers[1].accountId, { suspended_at: new Date() });
  const first = await server.get("/api/v1/follow_requests", { token: locked.token, query: { limit: "2" } });
  assert.equal(first.status, 200);
  assert.deepEqual(
    first.body.map((a: any) => a.id),
    [askers[3].accountId, askers[2].accountId],
  );
  const next = /<([^>]+)>; rel="next"/.exec(first.headers.get("link") ?? "")?.[1];
  assert.ok(next);
  const url = new URL(next);
  assert.equal(url.searchParams.get("limit"), "2");
  const second = await server.get(url.pathname + url.search, { token: locked.token });
  assert.deepEqual(
    second.body.map((a: any) => a.id),
    [askers[0].accountId],
  );
  assert.doesNotMatch(second.headers.get("link") ?? "", /rel="next"/);

  const reader = await user("reader", { scopes: ["read"] });
  assert.equal((await server.get("/api/v1/follow_requests", { token: reader.token })).status, 200);
  assert.equal(
    (await server.post(`/api/v1/follow_requests/${askers[0].accountId}/authorize`, { token: reader.token })).status,
    403,
  );
});

test("a silenced account's follows wait for an answer; following a silenced account does not", async () => {
  const silenced = await user("silenced");
  const open = await user("open");
  await setAccount(server, silenced.accountId, { silenced_at: new Date() });
  const res = await follow(silenced, open.accountId);
  assert.equal(res.body.following, false);
  assert.equal(res.body.requested, true);
  assert.deepEqual(
    (await notificationsOf(server, open.accountId)).map((x) => x.type),
    ["follow_request"],
  );
  assert.deepEqual(await counts(server, open.accountId), [0, 0]);

  const direct = await follow(open, silenced.accountId);
  assert.equal(direct.body.following, true);
  assert.deepEqual(await counts(server, silenced.accountId), [1, 0]);
});

test("following an account of another server asks it, and nobody here is notified", async () => {
  const alice = await user("alice");
  const remote = await remoteAccount(server, "far", "elsewhere.example");
  const res = await follow(alice, remote);
  assert.equal(res.status, 200);
  assert.equal(res.body.requested, true);
  assert.equal(res.body.following, false);
  assert.deepEqual(await notificationsOf(server, remote), []);
  assert.deepEqual(await counts(server, alice.accountId), [0, 0]);
});

test("following an account that moved away is refused", async () => {
  const alice = await user("alice");
  const old = await user("old");
  const moved = await user("new");
  await setAccount(server, old.accountId, { moved_to_account_id: moved.accountId });
  const res = await follow(alice, old.accountId);
  assert.equal(res.status, 403);
  assert.deepEqual(res.body, { error: "This action is not allowed" });
});
