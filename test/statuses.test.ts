// Posting, reading, editing and deleting statuses.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { newId } from "../src/domain/ids.ts";
import { insertStatus } from "../src/services/statuses/write.ts";
import { assertEntity } from "./conformance.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let alice: TestUser;
let bob: TestUser;

before(async () => {
  server = await startServer();
  alice = await server.user("alice");
  bob = await server.user("bob");
});
after(() => server.close());

const post = (user: TestUser, json: Record<string, unknown>, headers?: Record<string, string>) =>
  server.post("/api/v1/statuses", { token: user.token, json, headers });

test("a post with a mention, a hashtag and a link is a complete Status", async (t) => {
  const res = await post(alice, { status: "Hello @bob, see https://example.com/page #Birds", language: "en" });
  assert.equal(res.status, 200);
  const s = res.body;
  assertEntity(t, "Status", s);
  assert.equal(
    s.content,
    `<p>Hello <span class="h-card" translate="no"><a href="${server.url}/@bob" class="u-url mention">@<span>bob</span></a></span>, see <a href="https://example.com/page" target="_blank" rel="nofollow noopener" translate="no"><span class="invisible">https://</span><span class="">example.com/page</span><span class="invisible"></span></a> <a href="${server.url}/tags/Birds" class="mention hashtag" rel="tag">#<span>Birds</span></a></p>`,
  );
  assert.deepEqual(s.mentions, [{ id: bob.accountId, username: "bob", url: `${server.url}/@bob`, acct: "bob" }]);
  assert.deepEqual(s.tags, [{ name: "Birds", url: `${server.url}/tags/birds` }]);
  assert.equal(s.visibility, "public");
  assert.equal(s.language, "en");
  assert.equal(s.uri, `${server.url}/users/alice/statuses/${s.id}`);
  assert.equal(s.url, `${server.url}/@alice/${s.id}`);
  assert.deepEqual([s.replies_count, s.reblogs_count, s.favourites_count], [0, 0, 0]);
  assert.deepEqual([s.favourited, s.reblogged, s.bookmarked, s.muted, s.pinned], [false, false, false, false, false]);
  assert.equal(s.edited_at, null);
  assert.deepEqual(s.filtered, []);
  assert.equal(s.application.name, "Rookery tests");
  assert.equal(s.account.id, alice.accountId);
  assert.equal(s.account.statuses_count, 1);
  assert.match(s.created_at, /\.\d{3}Z$/);
  assert.equal(s.reblog, null);
  assert.equal(s.card, null);
  assert.equal(s.poll, null);
});

test("form-encoded posts, defaults from preferences, detected language", async () => {
  await server.patch("/api/v1/accounts/update_credentials", {
    token: bob.token,
    json: { source: { privacy: "unlisted", sensitive: true } },
  });
  const res = await server.post("/api/v1/statuses", {
    token: bob.token,
    form: { status: "Je vais au marché acheter du pain et du fromage ce matin.", spoiler_text: "" },
  });
  assert.equal(res.status, 200);
  assert.equal(res.body.visibility, "unlisted");
  assert.equal(res.body.sensitive, true);
  assert.equal(res.body.language, "fr");
  const cw = await post(alice, { status: "x", spoiler_text: "careful", sensitive: false });
  assert.equal(cw.body.sensitive, true, "a content warning makes a post sensitive");
  assert.equal(cw.body.spoiler_text, "careful");
});

test("length: 500 characters, URLs count 23, the content warning counts too", async () => {
  assert.equal((await post(alice, { status: "a".repeat(500) })).status, 200);
  const tooLong = await post(alice, { status: "a".repeat(501) });
  assert.equal(tooLong.status, 422);
  assert.equal(tooLong.body.error, "Validation failed: Text character limit of 500 exceeded");
  assert.equal(
    (await post(alice, { status: `${"a".repeat(476)} https://example.com/${"x".repeat(300)}` })).status,
    200,
  );
  assert.equal((await post(alice, { status: "a".repeat(490), spoiler_text: "b".repeat(11) })).status, 422);
  const empty = await post(alice, { status: "   " });
  assert.equal(empty.status, 422);
  assert.equal(empty.body.error, "Validation failed: Text can't be blank");
  assert.equal((await post(alice, { status: "x", media_ids: ["123"] })).status, 422);
  assert.equal((await post(alice, { status: "x", visibility: "secret" })).status, 422);
  assert.equal((await post(alice, { status: "x", language: "xx" })).status, 422);
});

test("the same Idempotency-Key gives back the same status", async () => {
  const headers = { "idempotency-key": "key-1" };
  const first = await post(alice, { status: "once" }, headers);
  const second = await post(alice, { status: "once" }, headers);
  assert.equal(first.body.id, second.body.id);
  const other = await post(bob, { status: "once" }, headers);
  assert.notEqual(other.body.id, first.body.id, "keys are per account");
});

test("concurrent requests with one Idempotency-Key post one status, and all answer with it", async () => {
  const headers = { "idempotency-key": "key-raced" };
  const answers = await Promise.all([1, 2, 3, 4].map(() => post(alice, { status: "raced" }, headers)));
  assert.deepEqual(
    answers.map((r) => r.status),
    [200, 200, 200, 200],
  );
  assert.equal(new Set(answers.map((r) => r.body.id)).size, 1);
  const mine = await server.get(`/api/v1/accounts/${alice.accountId}/statuses`, { token: alice.token });
  assert.equal(mine.body.filter((s: { content: string }) => s.content === "<p>raced</p>").length, 1);
});

test("many statuses by id, skipping the unknown and the invisible", async () => {
  const a = (await post(alice, { status: "one" })).body.id;
  const b = (await post(alice, { status: "two", visibility: "direct" })).body.id;
  const res = await server.get("/api/v1/statuses", { query: { "id[]": [a, "123", b] } });
  assert.deepEqual(
    res.body.map((s: { id: string }) => s.id),
    [a],
  );
});

test("edits keep a history; the source and edited_at follow", async (t) => {
  const s = (await post(alice, { status: "First version", spoiler_text: "cw" })).body;
  assert.deepEqual((await server.get(`/api/v1/statuses/${s.id}/history`)).body.length, 1);
  const edited = await server.put(`/api/v1/statuses/${s.id}`, {
    token: alice.token,
    json: { status: "Second version @bob", spoiler_text: "" },
  });
  assert.equal(edited.status, 200);
  assert.match(edited.body.edited_at, /Z$/);
  assert.match(edited.body.content, /Second version/);
  assert.equal(edited.body.mentions[0].username, "bob");
  const history = await server.get(`/api/v1/statuses/${s.id}/history`);
  assert.equal(history.body.length, 2);
  for (const v of history.body) assertEntity(t, "StatusEdit", v);
  assert.deepEqual(
    history.body.map((v: { content: string; spoiler_text: string }) => [v.content, v.spoiler_text]),
    [
      ["<p>First version</p>", "cw"],
      [edited.body.content, ""],
    ],
  );
  const source = await server.get(`/api/v1/statuses/${s.id}/source`, { token: alice.token });
  assert.deepEqual(source.body, { id: s.id, text: "Second version @bob", spoiler_text: "" });
  assert.equal(
    (await server.put(`/api/v1/statuses/${s.id}`, { token: bob.token, json: { status: "mine now" } })).status,
    404,
  );
});

test("delete answers with the source for redrafting, and the status is gone everywhere", async () => {
  const s = (await post(alice, { status: "Regret #oops", spoiler_text: "hm" })).body;
  const before = (await server.get(`/api/v1/accounts/${alice.accountId}`)).body.statuses_count;
  assert.equal((await server.delete(`/api/v1/statuses/${s.id}`, { token: bob.token })).status, 404);
  const deleted = await server.delete(`/api/v1/statuses/${s.id}`, { token: alice.token });
  assert.equal(deleted.status, 200);
  assert.equal(deleted.body.text, "Regret #oops");
  assert.equal(deleted.body.spoiler_text, "hm");
  assert.equal(deleted.body.id, s.id);
  assert.equal((await server.get(`/api/v1/statuses/${s.id}`)).status, 404);
  assert.equal((await server.post(`/api/v1/statuses/${s.id}/favourite`, { token: bob.token })).status, 404);
  assert.equal((await server.get(`/api/v1/accounts/${alice.accountId}`)).body.statuses_count, before - 1);
  const row = await server.rt.db
    .selectFrom("statuses")
    .select("deleted_at")
    .where("id", "=", s.id)
    .executeTakeFirstOrThrow();
  assert.ok(row.deleted_at instanceof Date, "the row stays for moderators");
});

test("threads: ancestors oldest first, descendants in reading order, counters", async () => {
  const root = (await post(alice, { status: "root" })).body;
  const r1 = (await post(bob, { status: "r1", in_reply_to_id: root.id })).body;
  const r2 = (await post(alice, { status: "r2", in_reply_to_id: root.id })).body;
  const r11 = (await post(alice, { status: "r11", in_reply_to_id: r1.id })).body;
  const r111 = (await post(bob, { status: "r111", in_reply_to_id: r11.id })).body;
  assert.equal(r1.in_reply_to_id, root.id);
  assert.equal(r1.in_reply_to_account_id, alice.accountId);
  const ctx = await server.get(`/api/v1/statuses/${r11.id}/context`);
  assert.deepEqual(
    ctx.body.ancestors.map((s: { id: string }) => s.id),
    [root.id, r1.id],
  );
  assert.deepEqual(
    ctx.body.descendants.map((s: { id: string }) => s.id),
    [r111.id],
  );
  const full = await server.get(`/api/v1/statuses/${root.id}/context`, { token: alice.token });
  assert.deepEqual(
    full.body.descendants.map((s: { id: string }) => s.id),
    [r1.id, r11.id, r111.id, r2.id],
  );
  assert.equal((await server.get(`/api/v1/statuses/${root.id}`)).body.replies_count, 2);
  assert.equal((await post(alice, { status: "x", in_reply_to_id: "123" })).status, 404);
});

test("a status whose URI is stored already is not written again, nor counted", async () => {
  const root = (await post(alice, { status: "root of a race" })).body;
  const reply = (await post(bob, { status: "first", in_reply_to_id: root.id })).body;
  const counts = async () => [
    (await server.get(`/api/v1/statuses/${root.id}`)).body.replies_count,
    (await server.get(`/api/v1/accounts/${bob.accountId}`)).body.statuses_count,
  ];
  const before = await counts();
  assert.equal(before[0], 1);
  // What a second job storing the same object at the same moment would write.
  const again = await server.rt.db.transaction().execute((trx) =>
    insertStatus(server.rt, trx, {
      id: newId(),
      uri: reply.uri,
      url: null,
      accountId: bob.accountId,
      local: true,
      visibility: "public",
      text: "second",
      content: "<p>second</p>",
      spoilerText: "",
      sensitive: false,
      language: null,
      parent: { id: root.id, account_id: alice.accountId, conversation_id: null },
      applicationId: null,
      createdAt: new Date(),
      editedAt: null,
      mentioned: [],
      tags: [],
      poll: null,
      media: [],
      remoteMedia: [],
    }),
  );
  assert.equal(again, null);
  assert.deepEqual(await counts(), before);
});

test("a long thread keeps every reply", async () => {
  let parent = (await post(alice, { status: "start" })).body.id;
  const root = parent;
  for (let i = 0; i < 70; i++)
    parent = (await post(i % 2 ? alice : bob, { status: `reply ${i}`, in_reply_to_id: parent })).body.id;
  const ctx = await server.get(`/api/v1/statuses/${root}/context`);
  assert.equal(ctx.body.descendants.length, 70);
});
