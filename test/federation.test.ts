// Two Rookery servers federating end to end, through each side's HTTP API as people would use it:
// following (open and locked accounts), posting, replying, mentioning, direct messages, boosts,
// favourites, edits, deletes, poll votes, profile updates, unfollowing and blocking.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import sharp from "sharp";
import { addEmoji } from "../src/services/emojis/custom_emojis.ts";
import { eventually, lookupRemote, settleAll, startFederatedServers, warmActor } from "./federation_rig.ts";
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
  for (const [server, user] of [
    [a, alice],
    [b, bob],
    [b, carol],
  ] as const)
    await warmActor(server, user);
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

/** The status of `uri` as `user` on `server` sees it (searched with resolve=false, found by its URI). */
async function statusOn(server: TestServer, user: TestUser, uri: string) {
  const row = await server.rt.db.selectFrom("statuses").select("id").where("uri", "=", uri).executeTakeFirst();
  if (!row) return null;
  const res = await server.get(`/api/v1/statuses/${row.id}`, { token: user.token });
  return res.status === 200 ? res.body : null;
}

async function notificationsOf(server: TestServer, user: TestUser, type: string) {
  const res = await server.get("/api/v1/notifications", { token: user.token, query: { "types[]": type } });
  assert.equal(res.status, 200, res.text);
  return res.body as any[];
}

test("a reply from the other server attaches to the thread and notifies", async () => {
  const original = await post(a, alice, "Who likes birds?");
  // Bob follows alice, so that her posts reach him.
  const f = await b.post(`/api/v1/accounts/${aliceOnB}/follow`, { token: bob.token });
  assert.equal(f.status, 200, f.text);
  await settle();
  assert.equal((await relationship(b, bob, aliceOnB)).following, true);
  const later = await post(a, alice, "A second post, after bob followed");
  await settle();
  const seen = await statusOn(b, bob, later.uri);
  assert.ok(seen, "alice's post did not reach b");
  const reply = await post(b, bob, { status: `@alice@${new URL(a.url).host} I do!`, in_reply_to_id: seen.id });
  await settle();
  const context = await a.get(`/api/v1/statuses/${later.id}/context`, { token: alice.token });
  assert.equal(context.status, 200, context.text);
  assert.deepEqual(
    context.body.descendants.map((s: any) => s.uri),
    [reply.uri],
  );
  const mentions = await notificationsOf(a, alice, "mention");
  assert.ok(mentions.some((n) => n.status.uri === reply.uri));
  assert.ok(original.id);
});

test("a mention in a new post finds the remote account through WebFinger", async () => {
  const dave = await b.user("dave");
  await warmActor(b, dave);
  const daveHandle = `dave@${new URL(b.url).host}`;
  const status = await post(a, alice, `Hi @${daveHandle}`);
  assert.equal(status.mentions.length, 1);
  assert.equal(status.mentions[0].acct, daveHandle);
  await settle();
  const mentions = await notificationsOf(b, dave, "mention");
  assert.deepEqual(
    mentions.map((n) => n.status.uri),
    [status.uri],
  );
});

test("a direct message reaches only its recipient", async () => {
  const dm = await post(b, bob, { status: `@alice@${new URL(a.url).host} just for you`, visibility: "direct" });
  await settle();
  const seen = await statusOn(a, alice, dm.uri);
  assert.ok(seen);
  assert.equal(seen.visibility, "direct");
  const conversations = await a.get("/api/v1/conversations", { token: alice.token });
  assert.ok(conversations.body.some((c: any) => c.last_status?.uri === dm.uri));
  // Nobody else on a sees it.
  const other = await a.user("eve");
  assert.equal(await statusOn(a, other, dm.uri), null);
});

test("boosts and favourites travel, and so do their undoing", async () => {
  const status = await post(a, alice, "Boost me");
  await settle();
  const onB = await statusOn(b, bob, status.uri);
  assert.ok(onB);
  assert.equal((await b.post(`/api/v1/statuses/${onB.id}/favourite`, { token: bob.token })).status, 200);
  assert.equal((await b.post(`/api/v1/statuses/${onB.id}/reblog`, { token: bob.token })).status, 200);
  await settle();
  let mine = await a.get(`/api/v1/statuses/${status.id}`, { token: alice.token });
  assert.equal(mine.body.favourites_count, 1);
  assert.equal(mine.body.reblogs_count, 1);
  assert.equal((await notificationsOf(a, alice, "favourite")).length, 1);
  assert.equal((await notificationsOf(a, alice, "reblog")).length, 1);
  assert.equal((await b.post(`/api/v1/statuses/${onB.id}/unfavourite`, { token: bob.token })).status, 200);
  assert.equal((await b.post(`/api/v1/statuses/${onB.id}/unreblog`, { token: bob.token })).status, 200);
  await settle();
  mine = await a.get(`/api/v1/statuses/${status.id}`, { token: alice.token });
  assert.equal(mine.body.favourites_count, 0);
  assert.equal(mine.body.reblogs_count, 0);
});

/** A picture uploaded by `user` on `server`, with its alt text and focal point. */
async function upload(server: TestServer, user: TestUser, description: string, focus: string) {
  const form = new FormData();
  const picture = await import("sharp").then((m) =>
    m
      .default({ create: { width: 48, height: 32, channels: 3, background: "#336699" } })
      .png()
      .toBuffer(),
  );
  form.append("file", new Blob([new Uint8Array(picture)], { type: "image/png" }), "blue.png");
  form.append("description", description);
  form.append("focus", focus);
  const media = await server.post("/api/v2/media", { token: user.token, multipart: form });
  assert.equal(media.status, 200, media.text);
  return media.body.id as string;
}

test("media travel both ways, served from the receiving server's own storage, with alt text, blurhash, focal point and size", async () => {
  const fromA = await post(a, alice, {
    status: "Look",
    media_ids: [await upload(a, alice, "A blue square", "0.5,-0.25")],
  });
  const fromB = await post(b, bob, { status: "Look back", media_ids: [await upload(b, bob, "Bob's square", "-1,1")] });
  await settle();
  for (const [status, copy, focus, there] of [
    [fromA, await statusOn(b, bob, fromA.uri), { x: 0.5, y: -0.25 }, b],
    [fromB, await statusOn(a, alice, fromB.uri), { x: -1, y: 1 }, a],
  ] as const) {
    const [mine, theirs] = [status.media_attachments[0], copy.media_attachments[0]];
    assert.equal(copy.media_attachments.length, 1);
    assert.equal(theirs.type, "image");
    assert.equal(theirs.description, mine.description);
    assert.equal(theirs.remote_url, mine.url);
    // The copy's files are the receiving server's own, with the same pixels.
    assert.ok(theirs.url.startsWith(`${there.url}/system/media_attachments/`), theirs.url);
    assert.ok(theirs.preview_url.startsWith(`${there.url}/system/media_attachments/`), theirs.preview_url);
    const pixels = async (url: string) =>
      (
        await sharp(Buffer.from(await (await fetch(url)).arrayBuffer()))
          .raw()
          .toBuffer()
      ).toString("base64");
    assert.equal(await pixels(theirs.url), await pixels(mine.url));
    assert.match(mine.blurhash, /^[0-9A-Za-z#$%*+,\-.:;=?@[\]^_{|}~]{6,}$/);
    // The receiving server's own, from its copy.
    assert.match(theirs.blurhash, /^[0-9A-Za-z#$%*+,\-.:;=?@[\]^_{|}~]{6,}$/);
    assert.deepEqual(theirs.meta.focus, focus);
    assert.deepEqual(theirs.meta.original, { width: 48, height: 32, size: "48x32", aspect: 1.5 });
  }
  // A fetch of the status is answered with the same Document, as Mastodon writes it.
  const note = await a.get(new URL(fromA.uri).pathname, { headers: { accept: "application/activity+json" } });
  assert.equal(note.status, 200, note.text);
  const document = JSON.parse(note.text).attachment[0];
  assert.deepEqual(
    { ...document, url: undefined },
    {
      type: "Document",
      mediaType: "image/png",
      url: undefined,
      name: "A blue square",
      blurhash: fromA.media_attachments[0].blurhash,
      focalPoint: [0.5, -0.25],
      width: 48,
      height: 32,
    },
  );
});

test("edits and deletes reach the copies", async () => {
  const status = await post(a, alice, "First words");
  await settle();
  const edit = await a.put(`/api/v1/statuses/${status.id}`, { token: alice.token, json: { status: "Better words" } });
  assert.equal(edit.status, 200, edit.text);
  await settle();
  const onB = await statusOn(b, bob, status.uri);
  assert.match(onB.content, /Better words/);
  assert.ok(onB.edited_at);
  assert.equal((await a.delete(`/api/v1/statuses/${status.id}`, { token: alice.token })).status, 200);
  await settle();
  assert.equal(await statusOn(b, bob, status.uri), null);
});

test("a remote vote counts in a local poll", async () => {
  const status = await post(a, alice, {
    status: "Tea or coffee?",
    poll: { options: ["Tea", "Coffee"], expires_in: 3600 },
  });
  await settle();
  const onB = await statusOn(b, bob, status.uri);
  assert.ok(onB?.poll, "the poll did not arrive");
  assert.deepEqual(
    onB.poll.options.map((o: any) => o.title),
    ["Tea", "Coffee"],
  );
  const vote = await b.post(`/api/v1/polls/${onB.poll.id}/votes`, { token: bob.token, json: { choices: [1] } });
  assert.equal(vote.status, 200, vote.text);
  await settle();
  const poll = await a.get(`/api/v1/polls/${status.poll.id}`, { token: alice.token });
  assert.deepEqual(
    poll.body.options.map((o: any) => o.votes_count),
    [0, 1],
  );
  assert.equal(poll.body.voters_count, 1);
});

test("a profile update reaches the followers' server", async () => {
  const res = await a.patch("/api/v1/accounts/update_credentials", {
    token: alice.token,
    json: { display_name: "Alice A.", note: "Birds, mostly" },
  });
  assert.equal(res.status, 200, res.text);
  await settle();
  const seen = await b.get(`/api/v1/accounts/${aliceOnB}`, { token: bob.token });
  assert.equal(seen.body.display_name, "Alice A.");
  assert.match(seen.body.note, /Birds, mostly/);
});

test("custom emojis travel as Emoji tags, in posts and profiles", async () => {
  const image = await import("sharp").then((m) =>
    m
      .default({ create: { width: 32, height: 32, channels: 4, background: "#aa3366" } })
      .png()
      .toBuffer(),
  );
  const rook = await addEmoji(a.rt, { shortcode: "rook", image });
  const status = await post(a, alice, "A bird of the crow family :rook:");
  const profile = await a.patch("/api/v1/accounts/update_credentials", {
    token: alice.token,
    json: { display_name: "Alice :rook:" },
  });
  assert.equal(profile.status, 200, profile.text);
  await settle();
  const [local] = status.emojis;
  assert.equal(local.shortcode, "rook");
  // On b the emoji is a's, copied into b's storage, and not offered in b's picker.
  const [theirs] = (await statusOn(b, bob, status.uri)).emojis;
  assert.deepEqual(
    { ...theirs, url: undefined, static_url: undefined },
    {
      shortcode: "rook",
      url: undefined,
      static_url: undefined,
      visible_in_picker: false,
      category: null,
    },
  );
  assert.match(theirs.url, new RegExp(`^${b.url}/system/remote_emojis/\\d+/[\\w-]+\\.png$`));
  assert.match(theirs.static_url, new RegExp(`^${b.url}/system/remote_emojis/\\d+/[\\w-]+\\.static\\.png$`));
  const account = await b.get(`/api/v1/accounts/${aliceOnB}`, { token: bob.token });
  assert.equal(account.body.display_name, "Alice :rook:");
  assert.deepEqual(account.body.emojis, [theirs]);
  assert.deepEqual((await b.get("/api/v1/custom_emojis")).body, []);
  // The Emoji tag's id resolves.
  const emoji = await a.get(`/emojis/${rook.id}`, { headers: { accept: "application/activity+json" } });
  assert.equal(emoji.status, 200, emoji.text);
  const json = JSON.parse(emoji.text);
  assert.equal(json.type, "Emoji");
  assert.equal(json.name, ":rook:");
  assert.equal(json.icon.url, local.url);
});

test("unfollowing and blocking end the follows on both sides", async () => {
  assert.equal((await a.post(`/api/v1/accounts/${bobOnA}/unfollow`, { token: alice.token })).status, 200);
  await settle();
  assert.equal((await relationship(b, bob, aliceOnB)).followed_by, false);
  // Bob still follows alice; her block ends that on b too.
  assert.equal((await relationship(b, bob, aliceOnB)).following, true);
  assert.equal((await a.post(`/api/v1/accounts/${bobOnA}/block`, { token: alice.token })).status, 200);
  await settle();
  assert.equal((await relationship(b, bob, aliceOnB)).following, false);
  const after = await post(a, alice, "Not for bob");
  await settle();
  assert.equal(await statusOn(b, bob, after.uri), null);
});

test("search with resolve finds remote accounts and statuses by address and URL", async () => {
  const frank = await b.user("frank");
  const host = new URL(b.url).host;
  await eventually(async () => {
    const byHandle = await a.get("/api/v2/search", {
      token: alice.token,
      query: { q: `@frank@${host}`, resolve: "true", type: "accounts" },
    });
    assert.equal(byHandle.status, 200, byHandle.text);
    assert.deepEqual(
      byHandle.body.accounts.map((x: any) => x.acct),
      [`frank@${host}`],
    );
  });
  const status = await post(b, frank, "Find me by my URL");
  const byUrl = await eventually(async () => {
    const res = await a.get("/api/v2/search", { token: alice.token, query: { q: status.uri, resolve: "true" } });
    assert.deepEqual(
      res.body.statuses.map((x: any) => x.uri),
      [status.uri],
    );
    return res;
  });
  assert.equal(byUrl.body.statuses[0].account.acct, `frank@${host}`);
});
