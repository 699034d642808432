// Blocking and muting accounts, and blocking whole domains.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { newId } from "../src/domain/ids.ts";
import { assertEntity } from "./conformance.ts";
import { counts, freshUser, notificationsOf, remoteAccount, setAccount } from "./fixtures.ts";
import { startServer, type TestServer, type TestUser, type UserOptions } from "./rig.ts";

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.close());

const user = (name: string, options?: UserOptions) => freshUser(server, name, options);
const act = (from: TestUser, action: string, toId: string, json: Record<string, unknown> = {}) =>
  server.post(`/api/v1/accounts/${toId}/${action}`, { token: from.token, json });
const relationship = async (from: TestUser, toId: string) =>
  (await server.get("/api/v1/accounts/relationships", { token: from.token, query: { id: toId } })).body[0];

test("blocking ends follows and requests both ways, with their counters", async () => {
  const alice = await user("alice");
  const bob = await user("bob");
  await act(alice, "follow", bob.accountId);
  await act(bob, "follow", alice.accountId);
  await act(alice, "endorse", bob.accountId);
  assert.deepEqual(await counts(server, alice.accountId), [1, 1]);

  const res = await act(alice, "block", bob.accountId);
  assert.equal(res.status, 200);
  assert.equal(res.body.blocking, true);
  assert.equal(res.body.following, false);
  assert.equal(res.body.followed_by, false);
  assert.equal(res.body.endorsed, false);
  assert.deepEqual(await counts(server, alice.accountId), [0, 0]);
  assert.deepEqual(await counts(server, bob.accountId), [0, 0]);
  assert.deepEqual(await notificationsOf(server, alice.accountId), []);
  assert.deepEqual(await notificationsOf(server, bob.accountId), []);
  assert.equal((await relationship(bob, alice.accountId)).blocked_by, true);

  // Nobody can follow across a block, either way.
  for (const [from, to] of [
    [alice, bob],
    [bob, alice],
  ] as const) {
    const refused = await act(from, "follow", to.accountId);
    assert.equal(refused.status, 403);
    assert.deepEqual(refused.body, { error: "This action is not allowed" });
  }

  const unblocked = await act(alice, "unblock", bob.accountId);
  assert.equal(unblocked.body.blocking, false);
  assert.equal((await act(alice, "follow", bob.accountId)).body.following, true);
});

test("blocking withdraws pending requests both ways", async () => {
  const alice = await user("alice");
  const bob = await user("bob");
  await setAccount(server, alice.accountId, { locked: true });
  await setAccount(server, bob.accountId, { locked: true });
  await act(alice, "follow", bob.accountId);
  await act(bob, "follow", alice.accountId);
  const res = await act(alice, "block", bob.accountId);
  assert.equal(res.body.requested, false);
  assert.equal(res.body.requested_by, false);
  assert.deepEqual((await server.get("/api/v1/follow_requests", { token: alice.token })).body, []);
  assert.deepEqual((await server.get("/api/v1/follow_requests", { token: bob.token })).body, []);
  assert.deepEqual(await notificationsOf(server, alice.accountId), []);
});

test("blocking or muting oneself does nothing", async () => {
  const alice = await user("alice");
  for (const action of ["block", "mute"]) {
    const res = await act(alice, action, alice.accountId);
    assert.equal(res.status, 200);
    assert.equal(res.body.blocking, false);
    assert.equal(res.body.muting, false);
  }
});

test("the block list pages by block and leaves out suspended accounts", async () => {
  const alice = await user("alice");
  const [a, b, c] = [await user("a"), await user("b"), await user("c")];
  for (const target of [a, b, c]) await act(alice, "block", target.accountId);
  await setAccount(server, b.accountId, { suspended_at: new Date() });
  const first = await server.get("/api/v1/blocks", { token: alice.token, query: { limit: "1" } });
  assert.deepEqual(
    first.body.map((x: any) => x.id),
    [c.accountId],
  );
  const next = new URL(/<([^>]+)>; rel="next"/.exec(first.headers.get("link") ?? "")![1]);
  const rest = await server.get(next.pathname + next.search, { token: alice.token });
  assert.deepEqual(
    rest.body.map((x: any) => x.id),
    [a.accountId],
  );
  assert.doesNotMatch(rest.headers.get("link") ?? "", /rel="next"/);
  const reader = await user("reader", { scopes: ["read:follows"] });
  assert.equal((await server.get("/api/v1/blocks", { token: reader.token })).status, 403);
});

test("muting hides notifications by default, for a while when given a duration", async (t) => {
  const alice = await user("alice");
  const bob = await user("bob");
  const before = Date.now();
  const res = await act(alice, "mute", bob.accountId, { duration: 3600 });
  assert.equal(res.status, 200);
  assert.equal(res.body.muting, true);
  assert.equal(res.body.muting_notifications, true);
  const ends = Date.parse(res.body.muting_expires_at);
  assert.ok(ends >= before + 3_600_000 && ends <= Date.now() + 3_600_000, res.body.muting_expires_at);
  assert.match(res.body.muting_expires_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

  const list = await server.get("/api/v1/mutes", { token: alice.token });
  assert.deepEqual(
    list.body.map((x: any) => [x.id, x.mute_expires_at]),
    [[bob.accountId, res.body.muting_expires_at]],
  );
  assert.equal(list.body[0].username, bob.username);
  assertEntity(t, "MutedAccount", list.body[0]);
  assertEntity(t, "Relationship", res.body);

  // Muting again keeps the notifications and ends the expiry.
  const changed = await server.post(`/api/v1/accounts/${bob.accountId}/mute`, {
    token: alice.token,
    form: { notifications: "false", duration: "0" },
  });
  assert.equal(changed.body.muting, true);
  assert.equal(changed.body.muting_notifications, false);
  assert.equal(changed.body.muting_expires_at, null);
  assert.equal((await server.get("/api/v1/mutes", { token: alice.token })).body[0].mute_expires_at, null);

  const unmuted = await act(alice, "unmute", bob.accountId);
  assert.equal(unmuted.body.muting, false);
  assert.deepEqual((await server.get("/api/v1/mutes", { token: alice.token })).body, []);

  const bad = await act(alice, "mute", bob.accountId, { duration: "soon" });
  assert.equal(bad.status, 422);
  assert.equal((await relationship(alice, bob.accountId)).muting, false);
});

test("an expired mute counts as no mute", async () => {
  const alice = await user("alice");
  const bob = await user("bob");
  const star = await user("star");
  await act(bob, "follow", star.accountId);
  await act(alice, "mute", bob.accountId, { duration: 60 });
  const hidden = await server.get(`/api/v1/accounts/${star.accountId}/followers`, { token: alice.token });
  assert.deepEqual(hidden.body, []);

  await server.rt.db
    .updateTable("mutes")
    .set({ expires_at: new Date(Date.now() - 1000) })
    .where("account_id", "=", alice.accountId)
    .execute();
  const rel = await relationship(alice, bob.accountId);
  assert.equal(rel.muting, false);
  assert.equal(rel.muting_notifications, false);
  assert.equal(rel.muting_expires_at, null);
  assert.deepEqual((await server.get("/api/v1/mutes", { token: alice.token })).body, []);
  const shown = await server.get(`/api/v1/accounts/${star.accountId}/followers`, { token: alice.token });
  assert.deepEqual(
    shown.body.map((a: any) => a.id),
    [bob.accountId],
  );
});

test("a mute that has run out lets the author's posts into home feeds again", async () => {
  const alice = await user("alice");
  const bob = await user("bob");
  await act(alice, "follow", bob.accountId);
  await act(alice, "mute", bob.accountId, { duration: 60 });
  const reachesHome = async (status: string) => {
    const posted = await server.post("/api/v1/statuses", { token: bob.token, json: { status } });
    await server.settle();
    const entry = await server.rt.db
      .selectFrom("feed_entries")
      .select("status_id")
      .where("feed_id", "=", alice.accountId)
      .where("status_id", "=", posted.body.id)
      .executeTakeFirst();
    return entry !== undefined;
  };
  assert.equal(await reachesHome("while muted"), false);
  // Ends now: the fan-out of the next post compares it with that post's time, not an earlier one.
  await server.rt.db
    .updateTable("mutes")
    .set({ expires_at: new Date() })
    .where("account_id", "=", alice.accountId)
    .execute();
  assert.equal(await reachesHome("after the mute"), true);
});

test("blocking a domain hides its accounts and cuts the ties with them", async () => {
  const alice = await user("alice");
  const far = await remoteAccount(server, "far", "blocked.example");
  const fan = await remoteAccount(server, "fan", "blocked.example");
  const asker = await remoteAccount(server, "asker", "blocked.example");
  const elsewhere = await remoteAccount(server, "near", "fine.example");
  const db = server.rt.db;
  const now = new Date();
  // Relationships as federation will have made them.
  await db
    .insertInto("follows")
    .values([
      { id: newId(), account_id: alice.accountId, target_account_id: far, uri: null, created_at: now },
      { id: newId(), account_id: fan, target_account_id: alice.accountId, uri: null, created_at: now },
      { id: newId(), account_id: alice.accountId, target_account_id: elsewhere, uri: null, created_at: now },
    ])
    .execute();
  await db
    .updateTable("account_stats")
    .set({ followers_count: 1, following_count: 2 })
    .where("account_id", "=", alice.accountId)
    .execute();
  await db
    .insertInto("follow_requests")
    .values({ id: newId(), account_id: asker, target_account_id: alice.accountId, uri: null, created_at: now })
    .execute();
  await db
    .insertInto("notifications")
    .values([
      {
        id: newId(),
        account_id: alice.accountId,
        from_account_id: fan,
        type: "follow",
        status_id: null,
        report_id: null,
        group_key: "follow-1",
        created_at: now,
      },
      {
        id: newId(),
        account_id: alice.accountId,
        from_account_id: elsewhere,
        type: "follow",
        status_id: null,
        report_id: null,
        group_key: "follow-1",
        created_at: now,
      },
    ])
    .execute();

  const res = await server.post("/api/v1/domain_blocks", { token: alice.token, form: { domain: "Blocked.Example" } });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, {});
  assert.deepEqual(await counts(server, alice.accountId), [0, 1]);
  assert.deepEqual(
    (await notificationsOf(server, alice.accountId)).map((x) => x.from_account_id),
    [elsewhere],
  );
  assert.deepEqual((await server.get("/api/v1/follow_requests", { token: alice.token })).body, []);
  const rels = await server.get("/api/v1/accounts/relationships", {
    token: alice.token,
    query: { "id[]": [far, elsewhere] },
  });
  assert.deepEqual(
    rels.body.map((r: any) => [r.domain_blocking, r.following]),
    [
      [true, false],
      [false, true],
    ],
  );
  const refused = await server.post(`/api/v1/accounts/${far}/follow`, { token: alice.token });
  assert.equal(refused.status, 403);

  const again = await server.post("/api/v1/domain_blocks", { token: alice.token, json: { domain: "blocked.example" } });
  assert.equal(again.status, 200);
  const list = await server.get("/api/v1/domain_blocks", { token: alice.token });
  assert.deepEqual(list.body, ["blocked.example"]);

  const removed = await server.delete("/api/v1/domain_blocks", {
    token: alice.token,
    json: { domain: "blocked.example" },
  });
  assert.equal(removed.status, 200);
  assert.deepEqual(removed.body, {});
  assert.deepEqual((await server.get("/api/v1/domain_blocks", { token: alice.token })).body, []);
  assert.equal((await server.post(`/api/v1/accounts/${far}/follow`, { token: alice.token })).body.requested, true);
});

test("domain blocks are checked, normalized and paged", async () => {
  const alice = await user("alice");
  const blank = await server.post("/api/v1/domain_blocks", { token: alice.token, form: { domain: "" } });
  assert.equal(blank.status, 422);
  assert.deepEqual(blank.body, { error: "Validation failed: Domain can't be blank" });
  assert.equal((await server.post("/api/v1/domain_blocks", { token: alice.token })).status, 422);
  for (const domain of ["not a domain", "evil.example/path", "a..b", "x_y.example"]) {
    const res = await server.post("/api/v1/domain_blocks", { token: alice.token, form: { domain } });
    assert.equal(res.status, 422, domain);
    assert.deepEqual(res.body, { error: "Validation failed: Domain is invalid" });
  }
  for (const domain of ["one.example", "Bücher.Example", "three.example/"]) {
    assert.equal((await server.post("/api/v1/domain_blocks", { token: alice.token, form: { domain } })).status, 200);
  }
  const first = await server.get("/api/v1/domain_blocks", { token: alice.token, query: { limit: "2" } });
  assert.deepEqual(first.body, ["three.example", "xn--bcher-kva.example"]);
  const next = new URL(/<([^>]+)>; rel="next"/.exec(first.headers.get("link") ?? "")![1]);
  const rest = await server.get(next.pathname + next.search, { token: alice.token });
  assert.deepEqual(rest.body, ["one.example"]);
  assert.doesNotMatch(rest.headers.get("link") ?? "", /rel="next"/);

  // Removing what is not blocked is no error.
  const absent = await server.delete("/api/v1/domain_blocks", {
    token: alice.token,
    form: { domain: "never.example" },
  });
  assert.equal(absent.status, 200);
  const reader = await user("reader", { scopes: ["read"] });
  assert.equal(
    (await server.post("/api/v1/domain_blocks", { token: reader.token, form: { domain: "x.example" } })).status,
    403,
  );
});
