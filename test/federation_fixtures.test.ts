// Activities written the way Mastodon, GoToSocial, Misskey and Pleroma write them
// (test/fixtures/activities/), signed by a stand-in of their server in both signature forms, go
// into the inbox: each is accepted (202) and handled by its job without failing, and does what
// test/fixtures/activities/README.md says.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { activityFixtureNames, loadActivity } from "./activity_fixtures.ts";
import { post } from "./fixtures.ts";
import { type RemoteActor, startRemoteActor } from "./remote_actor.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let alice: TestUser;
let sender: RemoteActor;
let values: Record<string, string>;
let targetStatusId: string;
let pollId: string;

before(async () => {
  server = await startServer({ env: { ALLOW_PRIVATE_ADDRESSES: "true" } });
  alice = await server.user("alice");
  sender = await startRemoteActor("sender");
  const status = await post(server, alice, "Something to boost and like");
  targetStatusId = status.id;
  const poll = await post(server, alice, { status: "Which?", poll: { options: ["Left", "Right"], expires_in: 3600 } });
  pollId = poll.poll.id;
  // A follow alice asked for, for the Accept and Reject fixtures to answer.
  const follow = await server.post("/api/v1/follows", { token: alice.token, json: { uri: sender.id } });
  assert.equal(follow.status, 200, follow.text);
  await server.settle();
  const request = await server.rt.db.selectFrom("follow_requests").select("uri").executeTakeFirstOrThrow();
  const host = new URL(server.url).host;
  values = {
    actor: sender.id,
    actor_url: `${sender.origin}/@sender`,
    actor_username: "sender",
    actor_public_key_pem: sender.publicKeyPem,
    origin: sender.origin,
    host: new URL(sender.origin).host,
    target: `${server.url}/users/alice`,
    target_url: `${server.url}/@alice`,
    target_username: "alice",
    target_acct: `@alice@${host}`,
    target_status: status.uri,
    target_poll: poll.uri,
    target_poll_option: "Right",
    our_follow: request.uri!,
  };
});
after(async () => {
  await server?.close();
  await sender?.close();
});

test("every fixture is accepted, signed either way, and its job does not fail", async () => {
  const names = activityFixtureNames().filter((n) => n !== "mastodon/delete_actor");
  for (const [i, name] of names.entries()) {
    const activity = loadActivity(name, values);
    const spec = i % 2 === 0 ? "draft-cavage-http-signatures-12" : "rfc9421";
    const status = await sender.send(`${server.url}/inbox`, activity, { spec });
    assert.equal(status, 202, `${name} (${spec}) answered ${status}`);
    await server.settle();
  }
  const failed = await server.rt.db
    .selectFrom("jobs")
    .select(["type", "last_error"])
    .where("last_error", "is not", null)
    .execute();
  assert.deepEqual(failed, []);
});

test("the fixtures did what they describe", async () => {
  const db = server.rt.db;
  const remote = await db.selectFrom("accounts").select("id").where("uri", "=", sender.id).executeTakeFirstOrThrow();
  // Mastodon's public note: stored with its mention, hashtag and image (by its remote URL).
  const statuses = await db
    .selectFrom("statuses")
    .select(["id", "visibility", "spoiler_text", "language", "in_reply_to_id", "uri"])
    .where("account_id", "=", remote.id)
    .where("reblog_of_id", "is", null)
    .execute();
  assert.ok(statuses.length >= 6, `${statuses.length} statuses`);
  assert.deepEqual([...new Set(statuses.map((s) => s.visibility))].sort(), ["direct", "private", "public", "unlisted"]);
  const reply = statuses.find((s) => s.in_reply_to_id === targetStatusId && s.spoiler_text !== "");
  assert.ok(reply, "the reply with a content warning");
  assert.equal(reply.language, "de");
  const media = await db
    .selectFrom("media_attachments")
    .select(["remote_url", "description"])
    .where("account_id", "=", remote.id)
    .execute();
  assert.ok(media.some((m) => m.remote_url && m.description));
  // The vote counted once for the option named, and made no status.
  const poll = await server.get(`/api/v1/polls/${pollId}`, { token: alice.token });
  assert.equal(poll.body.options[1].votes_count, 1);
  // Mentions notified alice.
  const mentions = await server.get("/api/v1/notifications", { token: alice.token, query: { "types[]": "mention" } });
  assert.ok(mentions.body.length >= 1);
  // The Accept made the follow; the Reject later ended it.
  const rel = await server.get("/api/v1/accounts/relationships", {
    token: alice.token,
    query: { "id[]": remote.id },
  });
  assert.equal(rel.body[0].requested, false);
});

test("a Delete of the actor suspends its account here", async () => {
  const status = await sender.send(`${server.url}/inbox`, loadActivity("mastodon/delete_actor", values));
  assert.equal(status, 202);
  await server.settle();
  const row = await server.rt.db
    .selectFrom("accounts")
    .select("suspended_at")
    .where("uri", "=", sender.id)
    .executeTakeFirstOrThrow();
  assert.ok(row.suspended_at);
});
