// An account's statuses and hashtags.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { assertEntity } from "./conformance.ts";
import { post, setAccount } from "./fixtures.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let alice: TestUser;
let bob: TestUser;
const ids: Record<string, string> = {};

before(async () => {
  server = await startServer();
  alice = await server.user("alice");
  bob = await server.user("bob");
  ids.bobs = (await post(server, bob, "bob's post")).id;
  ids.plain = (await post(server, alice, "plain post #Cats")).id;
  ids.reply_to_bob = (await post(server, alice, { status: "@bob hi", in_reply_to_id: ids.bobs })).id;
  ids.self_reply = (await post(server, alice, { status: "more #CATS", in_reply_to_id: ids.plain })).id;
  ids.boost = (await server.post(`/api/v1/statuses/${ids.bobs}/reblog`, { token: alice.token })).body.id;
  ids.newest = (await post(server, alice, "newest #ｃａｔｓ")).id;
});
after(() => server.close());

const list = async (query: Record<string, string> = {}, token?: string) => {
  const res = await server.get(`/api/v1/accounts/${alice.accountId}/statuses`, { query, token });
  assert.equal(res.status, 200);
  return res.body.map((s: { id: string }) => s.id);
};

test("newest first, with boosts and replies, without a token", async () => {
  assert.deepEqual(await list(), [ids.newest, ids.boost, ids.self_reply, ids.reply_to_bob, ids.plain]);
});

test("exclude_reblogs, exclude_replies (own threads stay), tagged (normalised)", async () => {
  assert.deepEqual(await list({ exclude_reblogs: "true" }), [ids.newest, ids.self_reply, ids.reply_to_bob, ids.plain]);
  assert.deepEqual(await list({ exclude_replies: "1" }), [ids.newest, ids.boost, ids.self_reply, ids.plain]);
  for (const tagged of ["cats", "#Cats", "ＣＡＴＳ"]) {
    assert.deepEqual(await list({ tagged }), [ids.newest, ids.self_reply, ids.plain], tagged);
  }
  assert.deepEqual(await list({ only_media: "true" }), [], "no media can be attached yet");
});

test("pagination with Link headers; none past the end", async () => {
  const res = await server.get(`/api/v1/accounts/${alice.accountId}/statuses`, { query: { limit: "2" } });
  assert.deepEqual(
    res.body.map((s: { id: string }) => s.id),
    [ids.newest, ids.boost],
  );
  assert.match(res.headers.get("link")!, new RegExp(`max_id=${ids.boost}.*rel="next"`));
  assert.match(res.headers.get("link")!, /limit=2/);
  const last = await server.get(`/api/v1/accounts/${alice.accountId}/statuses`, {
    query: { limit: "2", max_id: ids.reply_to_bob },
  });
  assert.deepEqual(
    last.body.map((s: { id: string }) => s.id),
    [ids.plain],
  );
  assert.doesNotMatch(last.headers.get("link")!, /rel="next"/);
});

test("missing accounts are 404; suspended ones show nothing", async () => {
  assert.equal((await server.get("/api/v1/accounts/123456789/statuses")).status, 404);
  const eve = await server.user("eve");
  await post(server, eve, "soon gone");
  await setAccount(server, eve.accountId, { suspended_at: new Date() });
  const res = await server.get(`/api/v1/accounts/${eve.accountId}/statuses`);
  assert.deepEqual([res.status, res.body], [200, []]);
});

test("tags: history, follow, unfollow, followed_tags", async (t) => {
  const tag = await server.get("/api/v1/tags/Cats", { token: bob.token });
  assert.equal(tag.status, 200);
  assertEntity(t, "Tag", tag.body);
  assert.equal(tag.body.name, "Cats");
  assert.equal(tag.body.url, `${server.url}/tags/cats`);
  assert.equal(tag.body.following, false);
  assert.equal(tag.body.history.length, 7);
  assert.deepEqual(tag.body.history[0].uses, "3");
  assert.deepEqual(tag.body.history[0].accounts, "1");
  assert.equal(typeof tag.body.history[0].day, "string");

  const followed = await server.post("/api/v1/tags/%23cats/follow", { token: bob.token });
  assert.equal(followed.body.following, true);
  await server.post("/api/v1/tags/birds/follow", { token: bob.token });
  const listed = await server.get("/api/v1/followed_tags", { token: bob.token });
  assert.deepEqual(
    listed.body.map((x: { name: string }) => x.name),
    ["birds", "Cats"],
  );
  const un = await server.post("/api/v1/tags/CATS/unfollow", { token: bob.token });
  assert.equal(un.body.following, false);
  assert.equal((await server.get("/api/v1/tags/not-valid!")).status, 404);
  assert.equal((await server.get("/api/v1/tags/cats")).body.following, undefined, "no viewer, no following flag");
});
