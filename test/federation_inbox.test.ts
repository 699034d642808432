// The inbox is the open internet: activities signed the way Mastodon signs them (draft-cavage, and
// RFC 9421) are accepted with 202 and handled in a job; a signature that does not verify (a changed
// body, a date out of the hour's window, a key that is not the actor's) is refused with 401; a
// redelivered activity changes nothing.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { blockDomain, unblockDomain } from "../src/services/moderation/domain_blocks.ts";
import { type RemoteActor, startRemoteActor } from "./remote_actor.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let alice: TestUser;
let mallory: RemoteActor;

before(async () => {
  server = await startServer({ env: { ALLOW_PRIVATE_ADDRESSES: "true" } });
  alice = await server.user("alice");
  mallory = await startRemoteActor();
});
after(async () => {
  await server.close();
  await mallory.close();
});

let n = 0;
/** A Create of a public Note, as Mastodon writes one. */
function create(text: string) {
  n++;
  const note = `${mallory.id}/statuses/${n}`;
  return {
    "@context": [
      "https://www.w3.org/ns/activitystreams",
      { ostatus: "http://ostatus.org#", sensitive: "as:sensitive", toot: "http://joinmastodon.org/ns#" },
    ],
    id: `${note}/activity`,
    type: "Create",
    actor: mallory.id,
    published: new Date().toISOString(),
    to: ["https://www.w3.org/ns/activitystreams#Public"],
    cc: [`${mallory.id}/followers`],
    object: {
      id: note,
      type: "Note",
      summary: null,
      inReplyTo: null,
      published: new Date().toISOString(),
      url: `${mallory.origin}/@mallory/${n}`,
      attributedTo: mallory.id,
      to: ["https://www.w3.org/ns/activitystreams#Public"],
      cc: [`${mallory.id}/followers`],
      sensitive: false,
      content: `<p>${text}</p>`,
      contentMap: { en: `<p>${text}</p>` },
      tag: [],
      attachment: [],
    },
  };
}

async function statusesOf(uri: string) {
  return server.rt.db.selectFrom("statuses").select(["id", "content"]).where("uri", "=", uri).execute();
}

const sharedInbox = () => `${server.url}/inbox`;

test("a Create signed as Mastodon signs (draft-cavage) is accepted and stored once", async () => {
  const activity = create("Hello from afar");
  assert.equal(await mallory.send(sharedInbox(), activity), 202);
  await server.settle();
  const stored = await statusesOf(activity.object.id);
  assert.equal(stored.length, 1);
  assert.match(stored[0].content, /Hello from afar/);
  // Redelivered: accepted, and nothing changes.
  assert.equal(await mallory.send(sharedInbox(), activity), 202);
  await server.settle();
  assert.equal((await statusesOf(activity.object.id)).length, 1);
  const account = await server.get(`/api/v1/statuses/${stored[0].id}`, { token: alice.token });
  assert.equal(account.body.account.acct, `mallory@${new URL(mallory.origin).host}`);
  assert.equal(account.body.account.uri, mallory.id);
});

test("a Create signed with RFC 9421 is accepted", async () => {
  const activity = create("Hello in the new way");
  assert.equal(await mallory.send(`${server.url}/users/alice/inbox`, activity, { spec: "rfc9421" }), 202);
  await server.settle();
  assert.equal((await statusesOf(activity.object.id)).length, 1);
});

test("a body changed after signing is refused with 401", async () => {
  const activity = create("Hello, unchanged");
  assert.equal(await mallory.send(sharedInbox(), activity, { tamper: true }), 401);
  await server.settle();
  assert.equal((await statusesOf(activity.object.id)).length, 0);
});

test("a signature dated outside the hour's window is refused with 401", async () => {
  const activity = create("Hello from the past");
  const status = await mallory.send(sharedInbox(), activity, { at: new Date(Date.now() - 2 * 3600_000) });
  assert.equal(status, 401);
});

test("a key that is not the actor's is refused with 401", async () => {
  const activity = create("Hello with another key");
  const status = await mallory.send(sharedInbox(), activity, { keyId: `${server.url}/users/alice#main-key` });
  assert.equal(status, 401);
});

test("a Follow is accepted and the Accept is delivered, signed", async () => {
  const follow = {
    "@context": "https://www.w3.org/ns/activitystreams",
    id: `${mallory.id}#follows/1`,
    type: "Follow",
    actor: mallory.id,
    object: `${server.url}/users/alice`,
  };
  assert.equal(await mallory.send(`${server.url}/users/alice/inbox`, follow), 202);
  await server.settle();
  const followers = await server.get(`/api/v1/accounts/${alice.accountId}/followers`, { token: alice.token });
  assert.deepEqual(
    followers.body.map((a: any) => a.uri),
    [mallory.id],
  );
  const accept = mallory.received.find((r) => r.body?.type === "Accept");
  assert.ok(accept, "no Accept arrived");
  assert.equal(accept.path, "/inbox");
  assert.match(String(accept.headers.signature), /keyId="[^"]*\/users\/alice#main-key"/);
  assert.equal(accept.body.actor, `${server.url}/users/alice`);
  assert.equal(accept.body.object.id, follow.id);
  assert.ok(accept.headers.digest);
  assert.match(String(accept.headers["user-agent"]), /^Rookery\//);
});

test("a suspended server's deliveries are refused, and nothing is fetched from it", async () => {
  const host = new URL(mallory.origin).host;
  await blockDomain(server.rt, { domain: host, severity: "suspend" });
  try {
    const activity = create("Hello while suspended");
    assert.equal(await mallory.send(sharedInbox(), activity), 403);
    await server.settle();
    assert.equal((await statusesOf(activity.object.id)).length, 0);
  } finally {
    await unblockDomain(server.rt, host);
  }
});
