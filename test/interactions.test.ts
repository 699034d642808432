// Favourites, boosts, bookmarks, pins, muted threads, and the notifications they create.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { assertEntity } from "./conformance.ts";
import { follow, notificationsOf as notificationRows, post } from "./fixtures.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;

before(async () => {
  server = await startServer();
  alice = await server.user("alice");
  bob = await server.user("bob");
  carol = await server.user("carol");
});
after(() => server.close());

async function notificationsOf(user: TestUser) {
  await server.settle();
  return (await notificationRows(server, user.accountId)).map(
    (r) =>
      `${r.type}:${r.from_account_id === alice.accountId ? "alice" : r.from_account_id === bob.accountId ? "bob" : "carol"}`,
  );
}

test("favourite and unfavourite: flags, counts, a notification that comes and goes", async () => {
  const s = await post(server, alice, "like me");
  const fav = await server.post(`/api/v1/statuses/${s.id}/favourite`, { token: bob.token });
  assert.equal(fav.status, 200);
  assert.equal(fav.body.favourited, true);
  assert.equal(fav.body.favourites_count, 1);
  assert.equal(
    (await server.post(`/api/v1/statuses/${s.id}/favourite`, { token: bob.token })).body.favourites_count,
    1,
    "twice is once",
  );
  assert.deepEqual(await notificationsOf(alice), ["favourite:bob"]);
  const by = await server.get(`/api/v1/statuses/${s.id}/favourited_by`);
  assert.deepEqual(
    by.body.map((a: { username: string }) => a.username),
    ["bob"],
  );
  const unfav = await server.post(`/api/v1/statuses/${s.id}/unfavourite`, { token: bob.token });
  assert.deepEqual([unfav.body.favourited, unfav.body.favourites_count], [false, 0]);
  assert.deepEqual(await notificationsOf(alice), []);
});

test("boosts: the boost wraps the original, once; private statuses can't be boosted by others", async (t) => {
  const s = await post(server, alice, "boost me");
  const boost = await server.post(`/api/v1/statuses/${s.id}/reblog`, {
    token: bob.token,
    form: { visibility: "unlisted" },
  });
  assert.equal(boost.status, 200);
  assertEntity(t, "Status", boost.body);
  assert.equal(boost.body.reblog.id, s.id);
  assert.equal(boost.body.visibility, "unlisted");
  assert.equal(boost.body.account.username, "bob");
  assert.equal(boost.body.reblog.reblogged, true);
  assert.equal(boost.body.reblog.reblogs_count, 1);
  assert.equal((await server.post(`/api/v1/statuses/${s.id}/reblog`, { token: bob.token })).body.id, boost.body.id);
  assert.equal(
    (await server.post(`/api/v1/statuses/${boost.body.id}/reblog`, { token: carol.token })).body.reblog.id,
    s.id,
    "boosting a boost boosts the original",
  );
  assert.deepEqual(
    (await server.get(`/api/v1/statuses/${s.id}/reblogged_by`)).body.map((a: { username: string }) => a.username),
    ["carol", "bob"],
  );
  assert.deepEqual(await notificationsOf(alice), ["reblog:bob", "reblog:carol"]);

  const un = await server.post(`/api/v1/statuses/${s.id}/unreblog`, { token: bob.token });
  assert.deepEqual([un.body.id, un.body.reblogged, un.body.reblogs_count], [s.id, false, 1]);
  assert.equal((await server.get(`/api/v1/statuses/${boost.body.id}`)).status, 404);

  await follow(server, bob, alice);
  const secret = await post(server, alice, { status: "followers only", visibility: "private" });
  const refused = await server.post(`/api/v1/statuses/${secret.id}/reblog`, { token: bob.token });
  assert.equal(refused.status, 403);
  const own = await server.post(`/api/v1/statuses/${secret.id}/reblog`, { token: alice.token });
  assert.equal(own.body.visibility, "private");
  const dm = await post(server, alice, { status: "@bob psst", visibility: "direct" });
  assert.equal((await server.post(`/api/v1/statuses/${dm.id}/reblog`, { token: alice.token })).status, 403);
});

test("bookmarks and favourites lists, newest first, with Link headers and min_id", async () => {
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push((await post(server, alice, `mark ${i}`)).id);
  for (const id of ids) {
    await server.post(`/api/v1/statuses/${id}/bookmark`, { token: carol.token });
    await server.post(`/api/v1/statuses/${id}/favourite`, { token: carol.token });
  }
  const page1 = await server.get("/api/v1/bookmarks", { token: carol.token, query: { limit: "2" } });
  assert.deepEqual(
    page1.body.map((s: { id: string }) => s.id),
    [ids[4], ids[3]],
  );
  assert.equal(page1.body[0].bookmarked, true);
  const link = page1.headers.get("link")!;
  assert.match(link, /^<[^>]+max_id=\d+[^>]*>; rel="next", <[^>]+min_id=\d+[^>]*>; rel="prev"$/);
  const next = new URL(/<([^>]+)>; rel="next"/.exec(link)![1]);
  const page2 = await server.get(next.pathname + next.search, { token: carol.token });
  assert.deepEqual(
    page2.body.map((s: { id: string }) => s.id),
    [ids[2], ids[1]],
  );
  const next2 = new URL(/<([^>]+)>; rel="next"/.exec(page2.headers.get("link")!)![1]);
  const page3 = await server.get(next2.pathname + next2.search, { token: carol.token });
  assert.deepEqual(
    page3.body.map((s: { id: string }) => s.id),
    [ids[0]],
  );
  assert.doesNotMatch(page3.headers.get("link") ?? "", /rel="next"/, "no next on the last page");

  const prev = new URL(/<([^>]+)>; rel="prev"/.exec(page2.headers.get("link")!)![1]);
  const newer = await server.get(prev.pathname + prev.search, { token: carol.token });
  assert.deepEqual(
    newer.body.map((s: { id: string }) => s.id),
    [ids[4], ids[3]],
  );

  const favs = await server.get("/api/v1/favourites", { token: carol.token, query: { limit: "3" } });
  assert.deepEqual(
    favs.body.map((s: { id: string }) => s.id),
    [ids[4], ids[3], ids[2]],
  );
  await server.post(`/api/v1/statuses/${ids[4]}/unbookmark`, { token: carol.token });
  assert.equal(
    (await server.get("/api/v1/bookmarks", { token: carol.token, query: { limit: "1" } })).body[0].id,
    ids[3],
  );
  // A deleted status leaves the lists.
  await server.delete(`/api/v1/statuses/${ids[3]}`, { token: alice.token });
  assert.equal(
    (await server.get("/api/v1/bookmarks", { token: carol.token, query: { limit: "1" } })).body[0].id,
    ids[2],
  );
});

test("pins: own public and unlisted statuses, at most 5", async () => {
  const ids: string[] = [];
  for (let i = 0; i < 6; i++)
    ids.push((await post(server, bob, { status: `pin ${i}`, visibility: i % 2 ? "unlisted" : "public" })).id);
  for (const id of ids.slice(0, 5)) {
    const res = await server.post(`/api/v1/statuses/${id}/pin`, { token: bob.token });
    assert.equal(res.body.pinned, true);
  }
  const sixth = await server.post(`/api/v1/statuses/${ids[5]}/pin`, { token: bob.token });
  assert.equal(sixth.status, 422);
  assert.equal(sixth.body.error, "Validation failed: You have already pinned the maximum number of posts");
  const others = await server.post(`/api/v1/statuses/${ids[0]}/pin`, { token: alice.token });
  assert.equal(others.status, 422);
  const secret = await post(server, bob, { status: "hidden", visibility: "private" });
  assert.equal((await server.post(`/api/v1/statuses/${secret.id}/pin`, { token: bob.token })).status, 422);

  const pinned = await server.get(`/api/v1/accounts/${bob.accountId}/statuses`, { query: { pinned: "true" } });
  assert.deepEqual(
    pinned.body.map((s: { id: string }) => s.id),
    ids.slice(0, 5).reverse(),
  );
  assert.equal(pinned.headers.get("link"), null, "the pinned listing has no pagination headers");
  await server.post(`/api/v1/statuses/${ids[0]}/unpin`, { token: bob.token });
  assert.equal((await server.post(`/api/v1/statuses/${ids[5]}/pin`, { token: bob.token })).status, 200);
});

test("mentions notify; muting a thread silences it", async () => {
  const root = await post(server, carol, "Thread start @alice");
  assert.ok((await notificationsOf(alice)).includes("mention:carol"));
  const muted = await server.post(`/api/v1/statuses/${root.id}/mute`, { token: alice.token });
  assert.equal(muted.body.muted, true);
  const before = (await notificationsOf(alice)).length;
  await post(server, carol, { status: "@alice again", in_reply_to_id: root.id });
  assert.equal((await notificationsOf(alice)).length, before, "nothing from a muted thread");
  await server.post(`/api/v1/statuses/${root.id}/unmute`, { token: alice.token });
  await post(server, carol, { status: "@alice and again", in_reply_to_id: root.id });
  assert.equal((await notificationsOf(alice)).length, before + 1);
});

test("followers who asked to be notified hear of new posts; boosters of an edit", async () => {
  await follow(server, bob, carol, { notify: true });
  const s = await post(server, carol, "news");
  await server.settle();
  const bobNotifications = await server.rt.db
    .selectFrom("notifications")
    .select(["type", "status_id"])
    .where("account_id", "=", bob.accountId)
    .where("type", "in", ["status", "update"])
    .execute();
  assert.deepEqual(bobNotifications, [{ type: "status", status_id: s.id }]);
  await server.post(`/api/v1/statuses/${s.id}/reblog`, { token: bob.token });
  await server.put(`/api/v1/statuses/${s.id}`, { token: carol.token, json: { status: "news, corrected" } });
  await server.settle();
  const updates = await server.rt.db
    .selectFrom("notifications")
    .select("type")
    .where("account_id", "=", bob.accountId)
    .where("type", "=", "update")
    .execute();
  assert.equal(updates.length, 1);
});
