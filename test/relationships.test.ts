// Following, the Relationship entity, notes, endorsements, and the follower and following lists.
import assert from "node:assert/strict";
import { request } from "node:http";
import { after, before, test } from "node:test";
import { assertEntity } from "./conformance.ts";
import { block, counts, freshUser, mute, notificationsOf, setAccount } from "./fixtures.ts";
import { startServer, type TestServer, type TestUser, type UserOptions } from "./rig.ts";

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.close());

/** A fresh user per test, so tests do not see each other's relationships. */
const user = (name: string, options?: UserOptions) => freshUser(server, name, options);

const follow = (from: TestUser, to: TestUser, body?: Record<string, unknown>) =>
  server.post(`/api/v1/accounts/${to.accountId}/follow`, { token: from.token, json: body ?? {} });

test("following counts on both sides, notifies, and answers the Relationship", async (t) => {
  const alice = await user("alice");
  const bob = await user("bob");
  const res = await follow(alice, bob);
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, {
    id: bob.accountId,
    following: true,
    showing_reblogs: true,
    notifying: false,
    languages: null,
    followed_by: false,
    blocking: false,
    blocked_by: false,
    muting: false,
    muting_notifications: false,
    muting_expires_at: null,
    requested: false,
    requested_by: false,
    domain_blocking: false,
    endorsed: false,
    note: "",
  });
  assertEntity(t, "Relationship", res.body);
  assert.deepEqual(await counts(server, bob.accountId), [1, 0]);
  assert.deepEqual(await counts(server, alice.accountId), [0, 1]);
  const notes = await notificationsOf(server, bob.accountId);
  assert.deepEqual(
    notes.map((x) => [x.type, x.from_account_id]),
    [["follow", alice.accountId]],
  );

  const profile = await server.get(`/api/v1/accounts/relationships`, {
    token: bob.token,
    query: { id: alice.accountId },
  });
  assert.equal(profile.body[0].followed_by, true);
  assert.equal(profile.body[0].following, false);
});

test("following again changes the options and nothing else", async () => {
  const alice = await user("alice");
  const bob = await user("bob");
  await follow(alice, bob);
  const res = await server.post(`/api/v1/accounts/${bob.accountId}/follow`, {
    token: alice.token,
    form: { reblogs: "false", notify: "true", "languages[]": ["en", "de"] },
  });
  assert.equal(res.status, 200);
  assert.equal(res.body.following, true);
  assert.equal(res.body.showing_reblogs, false);
  assert.equal(res.body.notifying, true);
  assert.deepEqual(res.body.languages, ["en", "de"]);
  assert.deepEqual(await counts(server, bob.accountId), [1, 0]);
  assert.equal((await notificationsOf(server, bob.accountId)).length, 1);

  // Options not given stay; an empty language list means every language again.
  const again = await follow(alice, bob, { languages: [] });
  assert.equal(again.body.showing_reblogs, false);
  assert.equal(again.body.notifying, true);
  assert.equal(again.body.languages, null);

  const bad = await follow(alice, bob, { languages: ["en", "klingon"] });
  assert.equal(bad.status, 422);
  assert.deepEqual(bad.body, { error: "Validation failed: Languages is invalid" });
});

test("unfollowing uncounts and withdraws the follow notification", async () => {
  const alice = await user("alice");
  const bob = await user("bob");
  await follow(alice, bob);
  const res = await server.post(`/api/v1/accounts/${bob.accountId}/unfollow`, { token: alice.token });
  assert.equal(res.status, 200);
  assert.equal(res.body.following, false);
  assert.deepEqual(await counts(server, bob.accountId), [0, 0]);
  assert.deepEqual(await counts(server, alice.accountId), [0, 0]);
  assert.deepEqual(await notificationsOf(server, bob.accountId), []);
  // Unfollowing someone not followed is no error.
  const again = await server.post(`/api/v1/accounts/${bob.accountId}/unfollow`, { token: alice.token });
  assert.equal(again.status, 200);
  assert.deepEqual(await counts(server, alice.accountId), [0, 0]);
});

test("remove_from_followers ends the other account's follow", async () => {
  const alice = await user("alice");
  const bob = await user("bob");
  await follow(bob, alice);
  const res = await server.post(`/api/v1/accounts/${bob.accountId}/remove_from_followers`, { token: alice.token });
  assert.equal(res.status, 200);
  assert.equal(res.body.followed_by, false);
  assert.deepEqual(await counts(server, alice.accountId), [0, 0]);
  assert.deepEqual(await counts(server, bob.accountId), [0, 0]);
});

test("following oneself is refused; missing, suspended and unconfirmed accounts are 404", async () => {
  const alice = await user("alice");
  const self = await follow(alice, alice);
  assert.equal(self.status, 403);
  assert.deepEqual(self.body, { error: "Following your own account is not allowed" });

  for (const id of ["1", "not-an-id", "99999999999999999999"]) {
    const res = await server.post(`/api/v1/accounts/${id}/follow`, { token: alice.token });
    assert.equal(res.status, 404, id);
    assert.deepEqual(res.body, { error: "Record not found" });
  }
  const gone = await user("gone");
  await setAccount(server, gone.accountId, { suspended_at: new Date() });
  for (const action of ["follow", "unfollow", "block", "mute", "note", "endorse"]) {
    const res = await server.post(`/api/v1/accounts/${gone.accountId}/${action}`, { token: alice.token });
    assert.equal(res.status, 404, action);
  }
  const pending = await user("pending");
  await server.rt.db.updateTable("users").set({ confirmed_at: null }).where("id", "=", pending.userId).execute();
  assert.equal((await follow(alice, { ...pending })).status, 404);
  assert.deepEqual(await counts(server, alice.accountId), [0, 0]);
});

test("relationship actions need the right scope and a token", async () => {
  const reader = await user("reader", { scopes: ["read"] });
  const bob = await user("bob");
  for (const action of ["follow", "unfollow", "block", "mute", "note", "endorse", "remove_from_followers"]) {
    const res = await server.post(`/api/v1/accounts/${bob.accountId}/${action}`, { token: reader.token });
    assert.equal(res.status, 403, action);
    assert.deepEqual(res.body, { error: "This action is outside the authorized scopes" });
  }
  const anonymous = await server.post(`/api/v1/accounts/${bob.accountId}/follow`);
  assert.equal(anonymous.status, 401);
  // The granular scope is enough; `follow` grants following but not notes.
  const granular = await user("granular", { scopes: ["write:follows"] });
  assert.equal((await follow(granular, bob)).status, 200);
  const legacy = await user("legacy", { scopes: ["follow"] });
  assert.equal((await follow(legacy, bob)).status, 200);
  const note = await server.post(`/api/v1/accounts/${bob.accountId}/note`, { token: legacy.token });
  assert.equal(note.status, 403);
  assert.deepEqual(await counts(server, bob.accountId), [2, 0]);
});

test("relationships answer in the order asked, once each, leaving out unknown and suspended accounts", async () => {
  const alice = await user("alice");
  const [b, c, d, e] = [await user("b"), await user("c"), await user("d"), await user("e")];
  await follow(alice, c);
  await follow(d, alice);
  await setAccount(server, e.accountId, { suspended_at: new Date() });
  const res = await server.get("/api/v1/accounts/relationships", {
    token: alice.token,
    query: { "id[]": [d.accountId, b.accountId, "123", c.accountId, b.accountId, e.accountId, "junk"] },
  });
  assert.equal(res.status, 200);
  assert.deepEqual(
    res.body.map((r: any) => [r.id, r.following, r.followed_by]),
    [
      [d.accountId, false, true],
      [b.accountId, false, false],
      [c.accountId, true, false],
    ],
  );
  const withSuspended = await server.get("/api/v1/accounts/relationships", {
    token: alice.token,
    query: { "id[]": [e.accountId], with_suspended: "true" },
  });
  assert.deepEqual(
    withSuspended.body.map((r: any) => r.id),
    [e.accountId],
  );
  const none = await server.get("/api/v1/accounts/relationships", { token: alice.token });
  assert.deepEqual(none.body, []);
  const anonymous = await server.get("/api/v1/accounts/relationships", { query: { id: b.accountId } });
  assert.equal(anonymous.status, 401);
});

test("a private note is kept, limited to 2000 characters, and cleared by a blank comment", async () => {
  const alice = await user("alice");
  const bob = await user("bob");
  const set = await server.post(`/api/v1/accounts/${bob.accountId}/note`, {
    token: alice.token,
    form: { comment: "Met at the 🦆 pond" },
  });
  assert.equal(set.status, 200);
  assert.equal(set.body.note, "Met at the 🦆 pond");
  const bobSees = await server.get("/api/v1/accounts/relationships", {
    token: bob.token,
    query: { id: alice.accountId },
  });
  assert.equal(bobSees.body[0].note, "");

  const long = await server.post(`/api/v1/accounts/${bob.accountId}/note`, {
    token: alice.token,
    json: { comment: "🦆".repeat(2001) },
  });
  assert.equal(long.status, 422);
  assert.deepEqual(long.body, { error: "Validation failed: Comment is too long (maximum is 2000 characters)" });
  const max = await server.post(`/api/v1/accounts/${bob.accountId}/note`, {
    token: alice.token,
    json: { comment: "🦆".repeat(2000) },
  });
  assert.equal(max.status, 200);
  assert.equal(max.body.note, "🦆".repeat(2000));

  const cleared = await server.post(`/api/v1/accounts/${bob.accountId}/note`, {
    token: alice.token,
    json: { comment: " " },
  });
  assert.equal(cleared.body.note, "");
  assert.equal(
    (await server.rt.db.selectFrom("account_notes").select("id").where("account_id", "=", alice.accountId).execute())
      .length,
    0,
  );
});

test("only followed accounts can be featured, and unfollowing unfeatures", async () => {
  const alice = await user("alice");
  const bob = await user("bob");
  const carol = await user("carol");
  const refused = await server.post(`/api/v1/accounts/${bob.accountId}/endorse`, { token: alice.token });
  assert.equal(refused.status, 422);
  assert.deepEqual(refused.body, {
    error: "Validation failed: You must be already following the person you want to endorse",
  });

  await follow(alice, bob);
  await follow(alice, carol);
  const endorsed = await server.post(`/api/v1/accounts/${bob.accountId}/endorse`, { token: alice.token });
  assert.equal(endorsed.status, 200);
  assert.equal(endorsed.body.endorsed, true);
  assert.equal((await server.post(`/api/v1/accounts/${bob.accountId}/endorse`, { token: alice.token })).status, 200);
  const pinned = await server.post(`/api/v1/accounts/${carol.accountId}/pin`, { token: alice.token });
  assert.equal(pinned.body.endorsed, true);

  const mine = await server.get("/api/v1/endorsements", { token: alice.token });
  assert.deepEqual(
    mine.body.map((a: any) => a.id),
    [carol.accountId, bob.accountId],
  );
  const publicList = await server.get(`/api/v1/accounts/${alice.accountId}/endorsements`, { query: { limit: "1" } });
  assert.equal(publicList.status, 200);
  assert.deepEqual(
    publicList.body.map((a: any) => a.id),
    [carol.accountId],
  );
  assert.match(publicList.headers.get("link") ?? "", /rel="next"/);
  const all = await server.get(`/api/v1/accounts/${alice.accountId}/endorsements`, { query: { limit: "0" } });
  assert.equal(all.body.length, 2);
  assert.equal(all.headers.get("link"), null);

  const unpinned = await server.post(`/api/v1/accounts/${carol.accountId}/unpin`, { token: alice.token });
  assert.equal(unpinned.body.endorsed, false);
  await server.post(`/api/v1/accounts/${bob.accountId}/unfollow`, { token: alice.token });
  const after = await server.get("/api/v1/endorsements", { token: alice.token });
  assert.deepEqual(after.body, []);

  assert.equal((await server.get("/api/v1/endorsements")).status, 401);
  assert.equal((await server.get("/api/v1/accounts/1/endorsements")).status, 404);
});

test("followers and following page by follow, with a next link only when more exist", async (t) => {
  const star = await user("star");
  const fans: TestUser[] = [];
  for (let i = 0; i < 3; i++) {
    const fan = await user("fan");
    fans.push(fan);
    await follow(fan, star);
  }
  const first = await server.get(`/api/v1/accounts/${star.accountId}/followers`, { query: { limit: "2" } });
  assert.equal(first.status, 200);
  assert.deepEqual(
    first.body.map((a: any) => a.id),
    [fans[2].accountId, fans[1].accountId],
  );
  assertEntity(t, "Account", first.body[0]);
  const link = first.headers.get("link") ?? "";
  const next = /<([^>]+)>; rel="next"/.exec(link)?.[1];
  assert.ok(next);
  assert.match(link, /rel="prev"/);
  const second = await server.get(new URL(next).pathname + new URL(next).search);
  assert.deepEqual(
    second.body.map((a: any) => a.id),
    [fans[0].accountId],
  );
  assert.doesNotMatch(second.headers.get("link") ?? "", /rel="next"/);

  const following = await server.get(`/api/v1/accounts/${fans[0].accountId}/following`);
  assert.deepEqual(
    following.body.map((a: any) => [a.id, a.followers_count]),
    [[star.accountId, 3]],
  );
  assert.equal((await server.get("/api/v1/accounts/1/followers")).status, 404);
  const empty = await server.get(`/api/v1/accounts/${star.accountId}/following`);
  assert.deepEqual(empty.body, []);
  assert.equal(empty.headers.get("link"), null);
});

test("a hidden network is empty to others and whole to its owner", async () => {
  const owner = await user("owner");
  const fan = await user("fan");
  const stranger = await user("stranger");
  await follow(fan, owner);
  await follow(owner, fan);
  await setAccount(server, owner.accountId, { hide_collections: true });
  for (const direction of ["followers", "following"]) {
    const others = await server.get(`/api/v1/accounts/${owner.accountId}/${direction}`, { token: stranger.token });
    assert.equal(others.status, 200);
    assert.deepEqual(others.body, []);
    assert.deepEqual((await server.get(`/api/v1/accounts/${owner.accountId}/${direction}`)).body, []);
    const own = await server.get(`/api/v1/accounts/${owner.accountId}/${direction}`, { token: owner.token });
    assert.deepEqual(
      own.body.map((a: any) => a.id),
      [fan.accountId],
    );
  }
});

test("lists leave out accounts the viewer blocks, is blocked by or mutes, and suspended ones", async () => {
  const star = await user("star");
  const viewer = await user("viewer");
  const [blocked, blocker, muted, suspended, plain] = [
    await user("blocked"),
    await user("blocker"),
    await user("muted"),
    await user("suspended"),
    await user("plain"),
  ];
  for (const fan of [blocked, blocker, muted, suspended, plain]) await follow(fan, star);
  await block(server, viewer, blocked);
  await block(server, blocker, viewer);
  await mute(server, viewer, muted);
  await setAccount(server, suspended.accountId, { suspended_at: new Date() });

  const seen = await server.get(`/api/v1/accounts/${star.accountId}/followers`, { token: viewer.token });
  assert.deepEqual(
    seen.body.map((a: any) => a.id),
    [plain.accountId],
  );
  const own = await server.get(`/api/v1/accounts/${star.accountId}/followers`, { token: star.token });
  assert.deepEqual(
    own.body.map((a: any) => a.id),
    [plain.accountId, muted.accountId, blocker.accountId, blocked.accountId],
  );

  // An account that blocks the viewer shows the viewer none of its network.
  await block(server, star, viewer);
  const blockedViewer = await server.get(`/api/v1/accounts/${star.accountId}/followers`, { token: viewer.token });
  assert.deepEqual(blockedViewer.body, []);

  const suspendedOwner = await user("banned");
  await follow(plain, suspendedOwner);
  await setAccount(server, suspendedOwner.accountId, { suspended_at: new Date() });
  assert.deepEqual((await server.get(`/api/v1/accounts/${suspendedOwner.accountId}/followers`)).body, []);
});

test("a token sent to a public list must allow reading accounts", async () => {
  const star = await user("star");
  const writer = await user("writer", { scopes: ["write"] });
  const res = await server.get(`/api/v1/accounts/${star.accountId}/followers`, { token: writer.token });
  assert.equal(res.status, 403);
  assert.deepEqual(res.body, { error: "This action is outside the authorized scopes" });
});

test("familiar followers: the accounts I follow that follow them", async (t) => {
  const me = await user("me");
  const [friend, other, hidden, target, secretive] = [
    await user("friend"),
    await user("other"),
    await user("hidden"),
    await user("target"),
    await user("secretive"),
  ];
  await follow(me, friend);
  await follow(me, hidden);
  for (const fan of [friend, other, hidden]) {
    await follow(fan, target);
    await follow(fan, secretive);
  }
  await setAccount(server, hidden.accountId, { hide_collections: true });
  await setAccount(server, secretive.accountId, { hide_collections: true });
  const res = await server.get("/api/v1/accounts/familiar_followers", {
    token: me.token,
    query: { "id[]": [target.accountId, secretive.accountId, "42"] },
  });
  assert.equal(res.status, 200);
  assert.deepEqual(
    res.body.map((r: any) => [r.id, r.accounts.map((a: any) => a.id)]),
    [
      [target.accountId, [friend.accountId]],
      [secretive.accountId, []],
    ],
  );
  assert.equal(res.body[0].accounts[0].username, friend.username);
  assertEntity(t, "FamiliarFollowers", res.body[0]);
});

/** A GET with a JSON body, as Mastodon.py sends some (fetch refuses a GET with a body). */
function getWithJsonBody(path: string, token: string, body: unknown): Promise<{ status: number; body: any }> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, server.url),
      {
        method: "GET",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          "content-length": String(Buffer.byteLength(text)),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString()) }));
      },
    );
    req.on("error", reject);
    req.end(text);
  });
}

test("familiar followers: ids sent as a JSON body on the GET, as Mastodon.py sends them", async () => {
  const me = await user("me");
  const friend = await user("friend");
  const target = await user("target");
  await follow(me, friend);
  await follow(friend, target);
  const res = await getWithJsonBody("/api/v1/accounts/familiar_followers", me.token, { id: [target.accountId] });
  assert.equal(res.status, 200);
  assert.deepEqual(
    res.body.map((r: any) => [r.id, r.accounts.map((a: any) => a.id)]),
    [[target.accountId, [friend.accountId]]],
  );
  // The same bounds as any body: too deep a JSON body is refused before any route reads it.
  const deep = await getWithJsonBody("/api/v1/accounts/familiar_followers", me.token, {
    id: JSON.parse(`${"[".repeat(40)}1${"]".repeat(40)}`),
  });
  assert.equal(deep.status, 400);
  assert.deepEqual(deep.body, { error: "Invalid request parameters: nested deeper than 32 levels" });
});

test("POST /api/v1/follows follows by name or profile address and answers the account", async () => {
  const follower = await user("follower");
  const target = await user("target");
  const name = target.username;
  for (const uri of [
    name,
    `@${name}`,
    `${name}@${new URL(server.url).host}`,
    `${server.url}/@${name}`,
    `${server.url}/users/${name}`,
  ]) {
    const res = await server.post("/api/v1/follows", { token: follower.token, form: { uri } });
    assert.equal(res.status, 200, uri);
    assert.equal(res.body.id, target.accountId);
    assert.equal(res.body.acct, name);
  }
  const rel = await server.get("/api/v1/accounts/relationships", {
    token: follower.token,
    query: { "id[]": target.accountId },
  });
  assert.equal(rel.body[0].following, true);
  assert.equal(
    (await server.post("/api/v1/follows", { token: follower.token, form: { uri: "nobody@unknown.example" } })).status,
    404,
  );
  assert.equal((await server.post("/api/v1/follows", { token: follower.token, form: {} })).status, 400);
});
