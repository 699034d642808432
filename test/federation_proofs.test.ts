// Object integrity proofs (FEP-8b32) on what Rookery sends: every kind of activity arrives at a
// stand-in server with a proof made by its actor's Ed25519 key, which Fedify's verifyObject
// accepts, fetching the key from the actor; a copy changed after signing fails.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { getDocumentLoader, verifyObject } from "@fedify/fedify";
import { Activity } from "@fedify/fedify/vocab";
import sharp from "sharp";
import { post } from "./fixtures.ts";
import { type RemoteActor, type RemoteServer, signedPostHeaders, startRemoteServer } from "./remote_actors.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let alice: TestUser;
let bob: TestUser;
let remote: RemoteServer;
let mallory: RemoteActor;

before(async () => {
  server = await startServer({ env: { ALLOW_PRIVATE_ADDRESSES: "true" } });
  alice = await server.user("alice");
  bob = await server.user("bob");
  remote = await startRemoteServer();
  mallory = remote.actor("mallory");
});
after(async () => {
  await server.close();
  await remote.close();
});

async function send(activity: Record<string, unknown>): Promise<void> {
  const inbox = `${server.url}/inbox`;
  const body = JSON.stringify({ "@context": "https://www.w3.org/ns/activitystreams", ...activity });
  const res = await fetch(inbox, {
    method: "POST",
    headers: signedPostHeaders(mallory, inbox, body, "draft-cavage"),
    body,
  });
  await res.arrayBuffer();
  assert.equal(res.status, 202);
  await server.settle();
}

const PUBLIC = "https://www.w3.org/ns/activitystreams#Public";
// The receiving side fetches the key from the actor on loopback, which the default loader refuses.
const documentLoader = getDocumentLoader({ allowPrivateAddress: true });

/** Every activity mallory's server received, parsed, oldest first. */
const received = () => remote.deliveries.map((d) => JSON.parse(d.body) as Record<string, any>);

test("every kind of activity carries a proof that verifies; a changed copy does not", async () => {
  // mallory follows alice (Accept) and locked bob (Reject), and posts something alice can act on.
  await send({ id: `${mallory.id}#follows/1`, type: "Follow", actor: mallory.id, object: `${server.url}/users/alice` });
  await server.patch("/api/v1/accounts/update_credentials", { token: bob.token, json: { locked: true } });
  await send({ id: `${mallory.id}#follows/2`, type: "Follow", actor: mallory.id, object: `${server.url}/users/bob` });
  const note = `${mallory.id}/statuses/1`;
  await send({
    id: `${note}/activity`,
    type: "Create",
    actor: mallory.id,
    to: [PUBLIC],
    object: { id: note, type: "Note", attributedTo: mallory.id, to: [PUBLIC], content: "<p>Hello</p>" },
  });
  const requests = await server.get("/api/v1/follow_requests", { token: bob.token });
  const malloryId = requests.body[0].id as string;
  assert.equal((await server.post(`/api/v1/follow_requests/${malloryId}/reject`, { token: bob.token })).status, 200);
  const theirs = await server.get("/api/v2/search", { token: alice.token, query: { q: note, resolve: "true" } });
  assert.equal(theirs.status, 200, theirs.text);
  const theirId = theirs.body.statuses[0].id as string;

  // With a picture, whose blurhash and focal point (terms Fedify's vocabulary lacks) the proof covers too.
  const form = new FormData();
  const picture = await sharp({ create: { width: 40, height: 30, channels: 3, background: "#225588" } })
    .png()
    .toBuffer();
  form.append("file", new Blob([new Uint8Array(picture)], { type: "image/png" }), "picture.png");
  form.append("focus", "0.25,0.5");
  const media = await server.post("/api/v2/media", { token: alice.token, multipart: form });
  assert.equal(media.status, 200, media.text);
  const mine = await post(server, alice, { status: "Signed, sealed, delivered", media_ids: [media.body.id] });
  // An activity is built from the rows when its job runs: each is let out before the next change.
  await server.settle();
  await server.put(`/api/v1/statuses/${mine.id}`, { token: alice.token, json: { status: "Signed and edited" } });
  await server.settle();
  await server.delete(`/api/v1/statuses/${mine.id}`, { token: alice.token });
  for (const action of ["favourite", "unfavourite", "reblog", "unreblog"]) {
    const res = await server.post(`/api/v1/statuses/${theirId}/${action}`, { token: alice.token });
    assert.equal(res.status, 200, `${action}: ${res.text}`);
    await server.settle();
  }
  for (const action of ["follow", "block", "unblock"]) {
    const res = await server.post(`/api/v1/accounts/${malloryId}/${action}`, { token: alice.token });
    assert.equal(res.status, 200, `${action}: ${res.text}`);
  }
  await server.settle();

  const activities = received();
  const create = activities.find((a) => a.type === "Create" && a.actor === `${server.url}/users/alice`);
  assert.equal(create?.object.attachment[0].blurhash, mine.media_attachments[0].blurhash);
  assert.deepEqual(create?.object.attachment[0].focalPoint, [0.25, 0.5]);
  const otherFocus = structuredClone(create);
  otherFocus.object.attachment[0].focalPoint = [0, 0];
  assert.equal(await verifyObject(Activity, otherFocus, { documentLoader }), null);
  const kinds = (a: Record<string, any>) => (a.type === "Undo" ? `Undo ${a.object.type}` : a.type);
  assert.deepEqual([...new Set(activities.map(kinds))].sort(), [
    "Accept",
    "Announce",
    "Block",
    "Create",
    "Delete",
    "Follow",
    "Like",
    "Reject",
    "Undo Announce",
    "Undo Block",
    "Undo Like",
    "Update",
  ]);
  // Addressed as Mastodon addresses, which servers matching plain strings (snac2) read as public.
  for (const d of remote.deliveries) assert.ok(!d.body.includes("as:Public"), d.body);
  for (const type of ["Create", "Delete", "Announce"]) {
    const activity = activities.find((a) => a.type === type && a.actor === `${server.url}/users/alice`);
    assert.deepEqual(activity?.to, [PUBLIC], type);
  }
  assert.deepEqual(create?.object.to, [PUBLIC]);
  assert.deepEqual(create?.object.cc, [`${server.url}/users/alice/followers`]);
  for (const activity of activities) {
    const actor = String(activity.actor);
    assert.equal(activity.proof?.type, "DataIntegrityProof", kinds(activity));
    assert.equal(activity.proof.cryptosuite, "eddsa-jcs-2022");
    assert.equal(activity.proof.verificationMethod, `${actor}#multikey-2`);
    const verified = await verifyObject(Activity, activity, { documentLoader });
    assert.ok(verified, `the proof of ${kinds(activity)} does not verify`);
    assert.equal(verified.actorId?.href, actor);
    const tampered = structuredClone(activity);
    tampered.id = `${tampered.id}-changed`;
    assert.equal(await verifyObject(Activity, tampered, { documentLoader }), null, kinds(activity));
  }
});
