// Relays, against a stand-in relay on loopback: adding one sends it the instance actor's signed
// Follow of the public collection; its Accept makes it accepted, after which public posts (not
// followers-only ones) are delivered to it; its Announce of another server's post brings that post
// into the federated timeline without a boost by the relay; disabling sends an Undo, a Reject sets
// the state, and removing takes the relay away.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import {
  addRelay,
  disableRelay,
  enableRelay,
  listRelays,
  relayByInbox,
  removeRelay,
} from "../src/services/federation/relays.ts";
import { type RemoteActor, type RemoteServer, signedPostHeaders, startRemoteServer } from "./remote_actors.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

const PUBLIC = "https://www.w3.org/ns/activitystreams#Public";

let server: TestServer;
let alice: TestUser;
let remote: RemoteServer;
let relay: RemoteActor;
let relayInbox: string;

before(async () => {
  server = await startServer({ env: { ALLOW_PRIVATE_ADDRESSES: "true" } });
  alice = await server.user("alice");
  remote = await startRemoteServer();
  relay = remote.actor("relay");
  relayInbox = `${relay.id}/inbox`;
});
after(async () => {
  await server.close();
  await remote.close();
});

/** Polls `check` until it answers something truthy, for up to a minute (the machine may be loaded). */
async function waitFor<T>(what: string, check: () => Promise<T> | T): Promise<Exclude<T, undefined | null | false>> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await check();
    if (value) return value as Exclude<T, undefined | null | false>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

type Json = Record<string, any>;

/** The activities the relay received, as JSON, with the signature's key id. */
const received = () =>
  remote.deliveries
    .filter((d) => d.path === new URL(relayInbox).pathname)
    .map((d) => ({ json: JSON.parse(d.body) as Json, signature: String(d.headers.signature ?? "") }));

/** POSTs `activity` to our shared inbox, signed by the relay. */
async function fromRelay(activity: Json): Promise<void> {
  const inbox = `${server.url}/inbox`;
  const body = JSON.stringify({ "@context": "https://www.w3.org/ns/activitystreams", ...activity });
  const res = await fetch(inbox, {
    method: "POST",
    headers: signedPostHeaders(relay, inbox, body, "draft-cavage"),
    body,
  });
  assert.equal(res.status, 202, await res.text());
}

const stateOf = async () => (await relayByInbox(server.rt, relayInbox)).state;

let followId = "";

test("adding a relay sends it a signed Follow of the public collection from the instance actor", async () => {
  const added = await addRelay(server.rt, relayInbox);
  assert.equal(added.state, "pending");
  const follow = await waitFor("the Follow", () => received().find((a) => a.json.type === "Follow"));
  assert.equal(follow.json.actor, `${server.url}/actor`);
  assert.equal(follow.json.object, PUBLIC);
  assert.equal(follow.json.id, added.follow_activity_id);
  assert.match(follow.signature, new RegExp(`keyId="${server.url}/actor#main-key"`));
  followId = String(follow.json.id);
  await assert.rejects(addRelay(server.rt, relayInbox), /Inbox URL has already been taken/);
  await assert.rejects(addRelay(server.rt, "ftp://relay.example/inbox"), /Inbox URL is invalid/);
});

test("the relay's Accept makes it accepted; public posts reach it, followers-only ones do not", async () => {
  await fromRelay({
    id: `${relay.id}#accepts/1`,
    type: "Accept",
    actor: relay.id,
    object: { id: followId, type: "Follow", actor: `${server.url}/actor`, object: PUBLIC },
  });
  await waitFor("the accepted state", async () => (await stateOf()) === "accepted");

  const hidden = await server.post("/api/v1/statuses", {
    token: alice.token,
    json: { status: "only for followers", visibility: "private" },
  });
  assert.equal(hidden.status, 200, hidden.text);
  const shown = await server.post("/api/v1/statuses", { token: alice.token, json: { status: "hello relay" } });
  assert.equal(shown.status, 200, shown.text);
  const create = await waitFor("the Create", () =>
    received().find((a) => a.json.type === "Create" && a.json.object?.id === shown.body.uri),
  );
  assert.match(create.json.object.content, /hello relay/);
  assert.match(create.signature, new RegExp(`keyId="${server.url}/users/alice#main-key"`));
  await server.settle();
  assert.equal(
    received().some((a) => a.json.object?.id === hidden.body.uri),
    false,
  );
});

test("the relay's Announce of another server's post brings it into the federated timeline, as no boost", async () => {
  const bob = remote.actor("bob");
  const noteUri = `${bob.id}/statuses/1`;
  remote.documents.set(new URL(noteUri).pathname, {
    "@context": "https://www.w3.org/ns/activitystreams",
    id: noteUri,
    type: "Note",
    attributedTo: bob.id,
    content: "<p>relayed from elsewhere</p>",
    published: new Date().toISOString(),
    to: [PUBLIC],
    cc: [`${bob.id}/followers`],
  });
  await fromRelay({
    id: `${relay.id}#announces/1`,
    type: "Announce",
    actor: relay.id,
    object: noteUri,
    to: [PUBLIC],
  });
  const status = await waitFor("the post in the federated timeline", async () => {
    const res = await server.get("/api/v1/timelines/public", { query: { remote: "true" } });
    return (res.body as Json[]).find((s) => s.uri === noteUri);
  });
  assert.equal(status.account.acct, `bob@${remote.host}`);
  assert.equal(status.reblog, null);
  await server.settle();
  const boosts = await server.rt.db.selectFrom("statuses").select("id").where("reblog_of_id", "=", status.id).execute();
  assert.deepEqual(boosts, []);
});

test("disabling sends an Undo of the Follow; a Reject of a new Follow marks it rejected; removing deletes it", async () => {
  const { id } = await relayByInbox(server.rt, relayInbox);
  await disableRelay(server.rt, id);
  assert.equal(await stateOf(), "idle");
  const undo = await waitFor("the Undo", () => received().find((a) => a.json.type === "Undo"));
  assert.equal(undo.json.object.id, followId);
  assert.equal(undo.json.object.object, PUBLIC);

  const again = await enableRelay(server.rt, id);
  assert.notEqual(again.follow_activity_id, followId);
  await fromRelay({ id: `${relay.id}#rejects/1`, type: "Reject", actor: relay.id, object: again.follow_activity_id });
  await waitFor("the rejected state", async () => (await stateOf()) === "rejected");

  await removeRelay(server.rt, id);
  assert.deepEqual(await listRelays(server.rt), []);
});
