// The inbox fed with activities written the way Mastodon, GoToSocial, Misskey and Pleroma write
// them (test/fixtures/activities/), signed as their servers sign (draft-cavage and RFC 9421), from
// stand-in servers on loopback; every effect is checked through the client API, as alice sees it.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { blockDomain } from "../src/services/moderation/domain_blocks.ts";
import { loadActivity, type Placeholder } from "./activity_fixtures.ts";
import { post } from "./fixtures.ts";
import { type RemoteServer, signedPostHeaders, startRemoteServer } from "./remote_actors.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let alice: TestUser;
const remotes: Record<string, RemoteServer> = {};
const values: Record<string, Partial<Record<Placeholder, string>>> = {};
let aliceStatus: { id: string; uri: string };
let alicePoll: { id: string; uri: string; poll: { id: string } };

before(async () => {
  server = await startServer({ env: { ALLOW_PRIVATE_ADDRESSES: "true" } });
  alice = await server.user("alice");
  aliceStatus = await post(server, alice, "the harbour at dawn");
  alicePoll = await post(server, alice, {
    status: "which bird?",
    poll: { options: ["Puffin", "Cormorant"], expires_in: 86400 },
  });
  const host = new URL(server.url).host;
  for (const software of ["mastodon", "gotosocial", "misskey", "pleroma", "snac", "hollo"]) {
    const remote = await startRemoteServer();
    remotes[software] = remote;
    const actor = remote.actor("sender");
    values[software] = {
      actor: actor.id,
      actor_url: `${remote.origin}/@sender`,
      actor_username: "sender",
      actor_public_key_pem: actor.publicKeyPem,
      origin: remote.origin,
      host: remote.host,
      target: `${server.url}/users/alice`,
      target_url: `${server.url}/@alice`,
      target_username: "alice",
      target_acct: `@alice@${host}`,
      target_status: aliceStatus.uri,
      target_poll: alicePoll.uri,
      target_poll_option: "Puffin",
    };
  }
});
after(async () => {
  await server.close();
  for (const remote of Object.values(remotes)) await remote.close();
});

let deliveries = 0;
/**
 * Posts the fixture, signed by its sender, to alice's inbox or (every other time) the shared inbox,
 * in draft-cavage and RFC 9421 form by turns, and waits for its job. Returns the inbox's status.
 */
async function deliver(
  name: string,
  o: {
    spec?: "draft-cavage" | "rfc9421";
    tamper?: boolean;
    /** The stand-in server that sends it (the fixture's own software unless told). */
    from?: string;
    /** The stand-in server whose actor signs it (the sender's unless told). */
    signer?: string;
    extra?: Partial<Record<Placeholder, string>>;
    /** Another id for the activity (the same object in a new activity). */
    id?: string;
    /** The activity to send instead of the fixture as it is (a changed copy of it). */
    replace?: Record<string, unknown>;
  } = {},
): Promise<number> {
  const software = o.from ?? name.split("/")[0];
  const remote = remotes[o.signer ?? software];
  const activity = o.replace ?? loadActivity(name, { ...values[software], ...o.extra });
  if (o.id) activity.id = o.id;
  const body = JSON.stringify(activity);
  deliveries++;
  const url = deliveries % 2 === 0 ? `${server.url}/inbox` : `${server.url}/users/alice/inbox`;
  const spec = o.spec ?? (deliveries % 3 === 0 ? "rfc9421" : "draft-cavage");
  const headers = signedPostHeaders(remote.actor("sender"), url, body, spec, { tamper: o.tamper });
  const res = await fetch(url, { method: "POST", headers, body });
  await res.arrayBuffer();
  await server.settle();
  return res.status;
}

async function senderId(software: string): Promise<string> {
  const res = await server.get("/api/v1/accounts/lookup", {
    token: alice.token,
    query: { acct: `sender@${remotes[software].host}` },
  });
  assert.equal(res.status, 200, `${software}: ${res.text}`);
  return res.body.id;
}

async function statusesOf(accountId: string): Promise<any[]> {
  const res = await server.get(`/api/v1/accounts/${accountId}/statuses`, { token: alice.token });
  assert.equal(res.status, 200, res.text);
  return res.body;
}

async function notifications(type: string): Promise<any[]> {
  const res = await server.get("/api/v1/notifications", { token: alice.token, query: { "types[]": type } });
  assert.equal(res.status, 200, res.text);
  return res.body;
}

const relationship = async (id: string) =>
  (await server.get("/api/v1/accounts/relationships", { token: alice.token, query: { "id[]": id } })).body[0];

test("a forged or unsigned delivery is refused with 401, in either signature form", async () => {
  for (const spec of ["draft-cavage", "rfc9421"] as const) {
    assert.equal(await deliver("mastodon/follow", { spec, tamper: true }), 401, spec);
  }
  const res = await fetch(`${server.url}/users/alice/inbox`, {
    method: "POST",
    headers: { "content-type": "application/activity+json" },
    body: JSON.stringify(loadActivity("mastodon/follow", values.mastodon)),
  });
  assert.equal(res.status, 401);
  const followers = await server.get(`/api/v1/accounts/${alice.accountId}/followers`, { token: alice.token });
  assert.deepEqual(followers.body, []);
});

test("Follow and Undo(Follow), from Mastodon, GoToSocial and Misskey", async () => {
  for (const software of ["mastodon", "gotosocial", "misskey"]) {
    assert.equal(await deliver(`${software}/follow`), 202, software);
    const id = await senderId(software);
    assert.equal((await relationship(id)).followed_by, true, software);
  }
  assert.equal((await notifications("follow")).length, 3);
  assert.equal(await deliver("mastodon/undo_follow"), 202);
  assert.equal((await relationship(await senderId("mastodon"))).followed_by, false);
});

test("Accept and Reject answer the follows alice sent", async () => {
  const sender = await senderId("mastodon");
  const asked = await server.post(`/api/v1/accounts/${sender}/follow`, { token: alice.token });
  assert.equal(asked.status, 200, asked.text);
  assert.equal(asked.body.requested, true);
  await server.settle();
  const follow = remotes.mastodon.deliveries
    .map((d) => JSON.parse(d.body))
    .find((a) => a.type === "Follow" && a.object === values.mastodon.actor);
  assert.ok(follow, "the Follow was delivered");
  assert.equal(await deliver("mastodon/accept_follow", { extra: { our_follow: follow.id } }), 202);
  const now = await relationship(sender);
  assert.deepEqual([now.following, now.requested], [true, false]);

  const gts = await senderId("gotosocial");
  await server.post(`/api/v1/accounts/${gts}/follow`, { token: alice.token });
  await server.settle();
  const second = remotes.gotosocial.deliveries.map((d) => JSON.parse(d.body)).find((a) => a.type === "Follow");
  assert.ok(second);
  assert.equal(await deliver("mastodon/reject_follow", { from: "gotosocial", extra: { our_follow: second.id } }), 202);
  const refused = await relationship(gts);
  assert.deepEqual([refused.following, refused.requested], [false, false]);
});

test("Hollo's Accept, whose id is the same for every follow of alice's, accepts a second follow after an unfollow", async () => {
  const hollo = await senderId("hollo");
  const followsSent = () => remotes.hollo.deliveries.map((d) => JSON.parse(d.body)).filter((a) => a.type === "Follow");
  for (let round = 1; round <= 2; round++) {
    const asked = await server.post(`/api/v1/accounts/${hollo}/follow`, { token: alice.token });
    assert.equal(asked.status, 200, asked.text);
    assert.equal(asked.body.requested, true, `round ${round}`);
    await server.settle();
    const follow = followsSent()[round - 1];
    assert.ok(follow, `the Follow of round ${round} was delivered`);
    assert.equal(await deliver("hollo/accept_follow", { extra: { our_follow: follow.id } }), 202);
    const now = await relationship(hollo);
    assert.deepEqual([now.following, now.requested], [true, false], `round ${round}`);
    if (round === 1) {
      assert.equal((await server.post(`/api/v1/accounts/${hollo}/unfollow`, { token: alice.token })).status, 200);
      await server.settle();
      assert.equal((await relationship(hollo)).following, false);
    }
  }
  // The same Accept again changes nothing.
  const last = followsSent()[1];
  assert.equal(await deliver("hollo/accept_follow", { extra: { our_follow: last.id } }), 202);
  const again = await relationship(hollo);
  assert.deepEqual([again.following, again.requested], [true, false]);
});

test("an activity signed by another actor than its own is refused", async () => {
  assert.equal(await deliver("mastodon/like", { signer: "gotosocial" }), 401);
  const s = (await server.get(`/api/v1/statuses/${aliceStatus.id}`, { token: alice.token })).body;
  assert.equal(s.favourites_count, 0);
});

test("Create(Note) public: mention, hashtag, contentMap; redelivery changes nothing", async () => {
  for (let i = 0; i < 2; i++) assert.equal(await deliver("mastodon/create_note_public"), 202);
  const sender = await senderId("mastodon");
  const statuses = await statusesOf(sender);
  assert.equal(statuses.length, 1, "one status for two deliveries");
  const s = statuses[0];
  assert.equal(s.visibility, "public");
  assert.equal(s.uri, `${values.mastodon.actor}/statuses/115501000000000001`);
  assert.equal(s.url, `${values.mastodon.actor_url}/115501000000000001`);
  assert.match(s.content, /Morning from the harbour/);
  assert.equal(s.language, "en");
  assert.deepEqual(
    s.mentions.map((m: { id: string }) => m.id),
    [alice.accountId],
  );
  assert.deepEqual(
    s.tags.map((t: { name: string }) => t.name),
    ["birds"],
  );
  const mentions = await notifications("mention");
  assert.ok(mentions.some((n) => n.status.id === s.id));
});

test("snac2's Note, under the plain ActivityStreams context: hashtag, content warning and mention still read", async () => {
  assert.equal(await deliver("snac/create_note_public"), 202);
  const [s] = await statusesOf(await senderId("snac"));
  assert.equal(s.uri, `${values.snac.actor}/p/1795560000.123456`);
  assert.deepEqual(
    s.tags.map((t: { name: string }) => t.name),
    ["tides"],
  );
  assert.equal(s.sensitive, true);
  assert.equal(s.spoiler_text, "tide tables");
  assert.deepEqual(
    s.mentions.map((m: { id: string }) => m.id),
    [alice.accountId],
  );
});

test("attachments arrive with their alt text, remote URL, blurhash, focal point and size (Mastodon's Document, GoToSocial's Image)", async () => {
  const s = (await statusesOf(await senderId("mastodon"))).find((x) => x.uri.endsWith("115501000000000001"));
  assert.equal(s.media_attachments.length, 1);
  const [media] = s.media_attachments;
  assert.equal(media.description, "A gull standing on a mooring post, sea behind it");
  assert.equal(
    media.remote_url,
    `${values.mastodon.origin}/system/media_attachments/files/115/501/000/original/gull.jpg`,
  );
  assert.equal(media.blurhash, "UFGbk@~q-;t7_3M{of%MM{t7WBay-;ofRjt7");
  assert.deepEqual(media.meta, {
    original: { width: 1600, height: 1200, size: "1600x1200", aspect: 1.333333 },
    focus: { x: 0.1, y: -0.3 },
  });
  assert.equal(await deliver("gotosocial/create_note_public"), 202);
  const gts = (await statusesOf(await senderId("gotosocial"))).find((x) => !x.poll);
  assert.equal(gts.media_attachments[0]?.description, "A small server on a shelf");
  assert.equal(gts.media_attachments[0]?.blurhash, "LEHV6nWB2yk8pyo0adR*.7kCMdnj");
  assert.deepEqual(gts.media_attachments[0]?.meta, { focus: { x: 0, y: 0 } });
});

test("custom emojis of other servers: a Note's and an actor's Emoji tags", async () => {
  const s = (await statusesOf(await senderId("mastodon"))).find((x) => x.uri.endsWith("115501000000000001"));
  const image = `${values.mastodon.origin}/system/custom_emojis/images/000/004/417/original/blobwave.png`;
  const blobwave = { shortcode: "blobwave", url: image, static_url: image, visible_in_picker: false, category: null };
  assert.deepEqual(s.emojis, [blobwave]);
  // Kept per server: the same shortcode from another server is not that emoji.
  const gts = (await statusesOf(await senderId("gotosocial"))).find((x) => !x.poll);
  assert.deepEqual(gts.emojis, []);
  // The actor's name uses it (the profile update below sends the same tag); so does its account.
  assert.equal(await deliver("mastodon/update_person"), 202);
  const account = await server.get(`/api/v1/accounts/${await senderId("mastodon")}`, { token: alice.token });
  assert.deepEqual(account.body.emojis, [blobwave]);
  // This server's own emojis do not change.
  const local = await server.get("/api/v1/custom_emojis");
  assert.deepEqual(local.body, []);
});

test("Create(Note) unlisted, followers-only and direct keep their audience", async () => {
  for (const name of ["create_note_unlisted", "create_note_followers_only", "create_note_direct"]) {
    assert.equal(await deliver(`mastodon/${name}`), 202, name);
  }
  const sender = await senderId("mastodon");
  const visibilities = (await statusesOf(sender))
    .map((s) => [s.uri.split("/").pop(), s.visibility])
    .filter(([id]) => ["115501000000000002", "115501000000000003", "115501000000000004"].includes(id));
  assert.deepEqual(visibilities.sort(), [
    ["115501000000000002", "unlisted"],
    ["115501000000000003", "private"],
    ["115501000000000004", "direct"],
  ]);
  const conversations = await server.get("/api/v1/conversations", { token: alice.token });
  assert.ok(conversations.body.some((c: any) => c.last_status?.uri.endsWith("115501000000000004")));
});

test("a reply with a content warning joins alice's thread", async () => {
  assert.equal(await deliver("mastodon/create_note_reply_content_warning"), 202);
  const context = await server.get(`/api/v1/statuses/${aliceStatus.id}/context`, { token: alice.token });
  const reply = context.body.descendants.find((s: any) => s.uri.endsWith("115501000000000005"));
  assert.ok(reply, "the reply is below alice's status");
  assert.equal(reply.in_reply_to_id, aliceStatus.id);
  assert.equal(reply.spoiler_text, "Spoilers for the last episode");
  assert.equal(reply.sensitive, true);
  assert.equal(reply.language, "de");
  // The same Note in another Create is neither stored nor counted again.
  const counts = async () => [
    (await server.get(`/api/v1/statuses/${aliceStatus.id}`, { token: alice.token })).body.replies_count,
    (await server.get(`/api/v1/accounts/${reply.account.id}`, { token: alice.token })).body.statuses_count,
  ];
  const once = await counts();
  assert.equal(once[0], 1);
  const again = `${values.mastodon.actor}/statuses/115501000000000005/activity-again`;
  assert.equal(await deliver("mastodon/create_note_reply_content_warning", { id: again }), 202);
  assert.deepEqual(await counts(), once);
});

test("polls from Mastodon and Misskey; votes for alice's poll", async () => {
  assert.equal(await deliver("mastodon/create_question"), 202);
  assert.equal(await deliver("misskey/create_question"), 202);
  const masto = (await statusesOf(await senderId("mastodon"))).find((s) => s.poll);
  assert.deepEqual(
    masto.poll.options.map((o: any) => [o.title, o.votes_count]),
    [
      ["Puffin", 2],
      ["Cormorant", 1],
    ],
  );
  assert.equal(masto.poll.multiple, false);
  const misskey = (await statusesOf(await senderId("misskey"))).find((s) => s.poll);
  assert.equal(misskey.poll.multiple, true);
  assert.deepEqual(
    misskey.poll.options.map((o: any) => o.title),
    ["Tea", "Coffee"],
  );

  assert.equal(await deliver("mastodon/create_poll_vote"), 202);
  assert.equal(await deliver("gotosocial/create_poll_vote"), 202);
  assert.equal(await deliver("mastodon/create_poll_vote"), 202, "a redelivered vote counts once");
  const poll = await server.get(`/api/v1/polls/${alicePoll.poll.id}`, { token: alice.token });
  assert.deepEqual(
    poll.body.options.map((o: any) => o.votes_count),
    [2, 0],
  );
  assert.equal(poll.body.voters_count, 2);
  const statuses = await statusesOf(await senderId("gotosocial"));
  assert.ok(!statuses.some((s) => s.content === ""), "a vote is not a status");
});

test("Update(Note) edits, Update(Person) changes the profile", async () => {
  assert.equal(await deliver("mastodon/update_note"), 202);
  const sender = await senderId("mastodon");
  const s = (await statusesOf(sender)).find((x) => x.uri.endsWith("115501000000000001"));
  assert.match(s.content, /Good morning from the harbour/);
  assert.ok(s.edited_at);
  const history = await server.get(`/api/v1/statuses/${s.id}/history`, { token: alice.token });
  assert.equal(history.body.length, 2);

  assert.equal(await deliver("mastodon/update_person"), 202);
  const account = await server.get(`/api/v1/accounts/${sender}`, { token: alice.token });
  assert.equal(account.body.display_name, "Harbour Watcher :blobwave:");
  assert.equal(account.body.note, "<p>I count boats and birds.</p>");
  assert.deepEqual(
    account.body.fields.map((f: any) => f.name),
    ["Boats counted", "Site"],
  );
  assert.equal(
    account.body.avatar,
    `${values.mastodon.origin}/system/accounts/avatars/000/000/001/original/avatar.png`,
  );
});

test("Announce and Like of alice's status, and their Undo; Misskey's reaction counts as a favourite", async () => {
  assert.equal(await deliver("mastodon/announce"), 202);
  assert.equal(await deliver("pleroma/announce"), 202);
  assert.equal(await deliver("mastodon/like"), 202);
  assert.equal(await deliver("gotosocial/like"), 202);
  assert.equal(await deliver("misskey/like_reaction"), 202);
  const counts = async () => {
    const s = (await server.get(`/api/v1/statuses/${aliceStatus.id}`, { token: alice.token })).body;
    return [s.reblogs_count, s.favourites_count];
  };
  assert.deepEqual(await counts(), [2, 3]);
  assert.equal((await notifications("reblog")).length, 2);
  assert.equal((await notifications("favourite")).length, 3);
  assert.equal(await deliver("mastodon/undo_announce"), 202);
  assert.equal(await deliver("mastodon/undo_like"), 202);
  assert.deepEqual(await counts(), [1, 2]);
});

test("Misskey's quote arrives as a status; Pleroma's note with its context", async () => {
  assert.equal(await deliver("misskey/create_note_quote"), 202);
  const quote = (await statusesOf(await senderId("misskey"))).find((s) => s.uri.endsWith("/notes/a1b2c3d4e5"));
  assert.ok(quote);
  assert.match(quote.content, /look at this/);
  assert.equal(await deliver("gotosocial/create_note_public"), 202);
  const gts = (await statusesOf(await senderId("gotosocial"))).find((s) => !s.poll);
  assert.match(gts.content, /testing from my little server/);
  assert.equal(await deliver("pleroma/create_note_public"), 202);
  const pleroma = (await statusesOf(await senderId("pleroma"))).filter((x) => !x.reblog);
  assert.equal(pleroma.length, 1);
  assert.match(pleroma[0].content, /greetings from the other side/);
});

test("Pleroma's EmojiReact and ChatMessage are taken and ignored", async () => {
  const before = await notifications("mention");
  assert.equal(await deliver("pleroma/emoji_react"), 202);
  assert.equal(await deliver("pleroma/chat_message"), 202);
  assert.deepEqual(await notifications("mention"), before);
  const s = (await server.get(`/api/v1/statuses/${aliceStatus.id}`, { token: alice.token })).body;
  assert.equal(s.favourites_count, 2);
});

test("Block and Undo(Block)", async () => {
  const sender = await senderId("mastodon");
  assert.equal(await deliver("mastodon/block"), 202);
  const blocked = await relationship(sender);
  assert.equal(blocked.followed_by, false, "a block ends the follow");
  assert.equal(await deliver("mastodon/undo_block"), 202);
});

test("Add and Remove to the sender's featured collection pin and unpin its status; to another collection, nothing", async () => {
  const sender = await senderId("mastodon");
  const pinned = async () => {
    const res = await server.get(`/api/v1/accounts/${sender}/statuses`, {
      token: alice.token,
      query: { pinned: "true" },
    });
    assert.equal(res.status, 200, res.text);
    return res.body.map((s: { uri: string }) => s.uri);
  };
  const note = `${values.mastodon.actor}/statuses/115501000000000001`;
  assert.deepEqual(await pinned(), []);
  const elsewhere = loadActivity("mastodon/add_pin", values.mastodon);
  elsewhere.target = `${values.mastodon.actor}/collections/other`;
  assert.equal(await deliver("mastodon/add_pin", { replace: elsewhere }), 202);
  assert.deepEqual(await pinned(), []);
  for (let i = 0; i < 2; i++) assert.equal(await deliver("mastodon/add_pin"), 202);
  assert.deepEqual(await pinned(), [note]);
  assert.equal(await deliver("mastodon/remove_pin"), 202);
  assert.deepEqual(await pinned(), []);
});

test("Flags from Mastodon, GoToSocial, Misskey and Pleroma become reports the moderators see; again, or from a server whose reports are rejected, nothing", async () => {
  const moderator = await server.user("flagmod", { role: "moderator", scopes: ["read", "admin:read"] });
  const flagged = ["mastodon", "gotosocial", "misskey", "pleroma"];
  for (const software of flagged) assert.equal(await deliver(`${software}/flag`), 202, software);
  const reports = async () => {
    const res = await server.get("/api/v1/admin/reports", {
      token: moderator.token,
      query: { target_account_id: alice.accountId },
    });
    assert.equal(res.status, 200, res.text);
    return res.body as any[];
  };
  const seen = await reports();
  const bySoftware = (software: string) => seen.find((r) => r.account.domain === remotes[software].host);
  for (const software of flagged) {
    const r = bySoftware(software);
    assert.ok(r, `a report from ${software}`);
    assert.equal(r.account.username, "sender");
    assert.equal(r.account.account.uri, values[software].actor);
    assert.equal(r.target_account.id, alice.accountId);
    assert.equal(r.category, "other");
    assert.equal(r.action_taken, false);
  }
  assert.equal(bySoftware("mastodon").comment, `Spam from this account, forwarded from ${remotes.mastodon.host}`);
  assert.equal(bySoftware("gotosocial").comment, "keeps posting the same link in every thread");
  assert.equal(bySoftware("pleroma").comment, "rude replies to everyone");
  // Misskey names the statuses in its comment, not in `object`.
  assert.equal(bySoftware("misskey").comment, `Note: ${aliceStatus.uri}\n-----\nimpersonating a harbour master`);
  assert.deepEqual(
    Object.fromEntries(flagged.map((s) => [s, bySoftware(s).statuses.map((x: { id: string }) => x.id)])),
    { mastodon: [aliceStatus.id], gotosocial: [aliceStatus.id], misskey: [], pleroma: [aliceStatus.id] },
  );
  const heard = await server.get("/api/v1/notifications", {
    token: moderator.token,
    query: { "types[]": "admin.report" },
  });
  assert.deepEqual(heard.body.map((n: { report: { id: string } }) => n.report.id).sort(), seen.map((r) => r.id).sort());

  // The same Flags again: nothing new.
  for (const software of ["mastodon", "misskey"]) assert.equal(await deliver(`${software}/flag`), 202);
  assert.equal((await reports()).length, 4);

  // A server whose reports are rejected: its next Flag is taken (202) and dropped.
  await blockDomain(server.rt, { domain: remotes.pleroma.host, severity: "noop", rejectReports: true });
  assert.equal(await deliver("pleroma/flag", { id: `${values.pleroma.origin}/activities/another-report` }), 202);
  assert.equal((await reports()).length, 4);
});

test("Delete(Note) leaves a gone status; Delete of the actor removes the account", async () => {
  const sender = await senderId("mastodon");
  const s = (await statusesOf(sender)).find((x) => x.uri.endsWith("115501000000000001"));
  assert.equal(await deliver("mastodon/delete_note"), 202);
  assert.equal((await server.get(`/api/v1/statuses/${s.id}`, { token: alice.token })).status, 404);
  assert.equal(await deliver("mastodon/delete_actor"), 202);
  const account = await server.get(`/api/v1/accounts/${sender}`, { token: alice.token });
  assert.ok([404, 410].includes(account.status), String(account.status));
  assert.deepEqual(await statusesOf(sender), []);
});
