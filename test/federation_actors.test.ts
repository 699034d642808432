// What other servers read of this one: WebFinger, actors with their keys, collections and
// statuses as ActivityStreams, and content negotiation that leaves browsers to the pages.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { post } from "./fixtures.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let alice: TestUser;
const AS = { accept: "application/activity+json" };
// Mastodon writes the public collection's full URI, in an array; servers that match it as a plain
// string (snac2) know no other form.
const PUBLIC = "https://www.w3.org/ns/activitystreams#Public";

before(async () => {
  server = await startServer({ env: { ALLOW_PRIVATE_ADDRESSES: "true" } });
  alice = await server.user("alice");
});
after(() => server.close());

test("WebFinger finds a local account and names its actor", async () => {
  const host = new URL(server.url).host;
  const res = await server.get("/.well-known/webfinger", { query: { resource: `acct:alice@${host}` } });
  assert.equal(res.status, 200, res.text);
  const body = JSON.parse(res.text);
  assert.equal(body.subject, `acct:alice@${host}`);
  const self = body.links.find((l: any) => l.rel === "self");
  assert.equal(self.href, `${server.url}/users/alice`);
  assert.equal(self.type, "application/activity+json");
  const missing = await server.get("/.well-known/webfinger", { query: { resource: `acct:nobody@${host}` } });
  assert.equal(missing.status, 404);
});

test("the actor has its endpoints, keys and profile", async () => {
  await server.patch("/api/v1/accounts/update_credentials", {
    token: alice.token,
    json: { display_name: "Alice", note: "Hi", locked: true, fields_attributes: [{ name: "Site", value: "x" }] },
  });
  const res = await server.get("/users/alice", { headers: AS });
  assert.equal(res.status, 200, res.text);
  const actor = JSON.parse(res.text);
  assert.equal(actor.type, "Person");
  assert.equal(actor.id, `${server.url}/users/alice`);
  assert.equal(actor.preferredUsername, "alice");
  assert.equal(actor.name, "Alice");
  assert.equal(actor.inbox, `${server.url}/users/alice/inbox`);
  assert.equal(actor.endpoints.sharedInbox, `${server.url}/inbox`);
  assert.equal(actor.followers, `${server.url}/users/alice/followers`);
  assert.equal(actor.featured, `${server.url}/users/alice/collections/featured`);
  assert.equal(actor.manuallyApprovesFollowers, true);
  assert.match(actor.publicKey.publicKeyPem, /BEGIN PUBLIC KEY/);
  assert.equal(actor.publicKey.id, `${server.url}/users/alice#main-key`);
  assert.ok(actor.assertionMethod.some((k: any) => k.publicKeyMultibase?.startsWith("z")));
  assert.deepEqual(
    [actor.attachment].flat().map((a: any) => [a.type, a.name]),
    [["PropertyValue", "Site"]],
  );
  // The same document at /@alice, asked for as ActivityStreams.
  const viaProfile = await server.get("/@alice", { headers: AS });
  assert.equal(JSON.parse(viaProfile.text).id, actor.id);
});

test("the instance actor is an Application at /actor", async () => {
  const res = await server.get("/actor", { headers: AS });
  assert.equal(res.status, 200, res.text);
  const actor = JSON.parse(res.text);
  assert.equal(actor.type, "Application");
  assert.ok(actor.publicKey.publicKeyPem);
});

test("a public status is a Note addressed as Mastodon does; a private one is not served", async () => {
  const status = await post(server, alice, { status: "Hello #Fediverse", visibility: "public" });
  const res = await server.get(`/users/alice/statuses/${status.id}`, { headers: AS });
  assert.equal(res.status, 200, res.text);
  const note = JSON.parse(res.text);
  assert.equal(note.type, "Note");
  assert.equal(note.attributedTo, `${server.url}/users/alice`);
  assert.deepEqual(note.to, [PUBLIC]);
  assert.deepEqual(note.cc, [`${server.url}/users/alice/followers`]);
  assert.ok(!res.text.includes("as:Public"), res.text);
  assert.equal(note.tag.type ?? note.tag[0].type, "Hashtag");
  const unlisted = await post(server, alice, { status: "quiet", visibility: "unlisted" });
  const u = JSON.parse((await server.get(`/users/alice/statuses/${unlisted.id}`, { headers: AS })).text);
  assert.deepEqual(u.to, [`${server.url}/users/alice/followers`]);
  assert.deepEqual(u.cc, [PUBLIC]);
  const hidden = await post(server, alice, { status: "secret", visibility: "private" });
  const res2 = await server.get(`/users/alice/statuses/${hidden.id}`, { headers: AS });
  assert.equal(res2.status, 404);
  const viaUrl = await server.get(`/@alice/${status.id}`, { headers: AS });
  assert.equal(JSON.parse(viaUrl.text).id, note.id);
});

test("collections count what they hold", async () => {
  const outbox = JSON.parse((await server.get("/users/alice/outbox", { headers: AS })).text);
  assert.equal(outbox.type, "OrderedCollection");
  assert.equal(outbox.totalItems, 3);
  const page = await server.get(outbox.first, { headers: AS });
  assert.ok(!page.text.includes("as:Public"), page.text);
  const items = JSON.parse(page.text).orderedItems;
  assert.equal(items.length, 2, "public and unlisted, not private");
  assert.deepEqual(items[items.length - 1].to, [PUBLIC]);
  assert.deepEqual(items[items.length - 1].object.to, [PUBLIC]);
  const followers = JSON.parse((await server.get("/users/alice/followers", { headers: AS })).text);
  assert.equal(followers.totalItems, 0);
});

test("an unsigned inbox POST is refused with 401", async () => {
  const res = await server.post("/users/alice/inbox", {
    headers: { "content-type": "application/activity+json" },
    body: JSON.stringify({
      "@context": "https://www.w3.org/ns/activitystreams",
      id: "https://remote.example/activities/1",
      type: "Follow",
      actor: "https://remote.example/users/bob",
      object: `${server.url}/users/alice`,
    }),
  });
  assert.equal(res.status, 401);
});
