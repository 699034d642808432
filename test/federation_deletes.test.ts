// An account's deletion (its suspension) reaches every server that knows the account, as Mastodon's
// does: its followers' servers, and those of the accounts it follows, replied to, boosted,
// favourited and mentioned; a server it never dealt with hears nothing. On another Rookery the
// account and its posts then disappear.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { eventually, lookupRemote, settleAll, startFederatedServers, warmActor } from "./federation_rig.ts";
import { post } from "./fixtures.ts";
import { type RemoteServer, signedPostHeaders, startRemoteServer } from "./remote_actors.ts";
import type { TestServer, TestUser } from "./rig.ts";

const PUBLIC = "https://www.w3.org/ns/activitystreams#Public";
const KINDS = ["followed", "repliedTo", "boosted", "favourited", "mentioned", "stranger"] as const;
type Kind = (typeof KINDS)[number];

let a: TestServer;
let b: TestServer;
let leaver: TestUser; // on a
let admin: TestUser; // on a
let bob: TestUser; // on b
const remotes = {} as Record<Kind, RemoteServer>;

before(async () => {
  [a, b] = await startFederatedServers(2);
  leaver = await a.user("leaver");
  admin = await a.user("boss", { role: "admin", scopes: ["read", "write", "admin:read", "admin:write"] });
  bob = await b.user("bob");
  for (const kind of KINDS) remotes[kind] = await startRemoteServer();
  await warmActor(a, leaver);
  await warmActor(b, bob);
});
after(async () => {
  await Promise.all([a?.close(), b?.close(), ...Object.values(remotes).map((r) => r.close())]);
});

const settle = () => settleAll([a, b]);

/** A public Note of the stand-in server's actor "someone", delivered to a; its id on a and its author's. */
async function noteFrom(kind: Kind): Promise<{ id: string; accountId: string }> {
  const remote = remotes[kind];
  const actor = remote.actor("someone");
  const note = `${actor.id}/statuses/1`;
  const body = JSON.stringify({
    "@context": "https://www.w3.org/ns/activitystreams",
    id: `${note}/activity`,
    type: "Create",
    actor: actor.id,
    to: [PUBLIC],
    object: { id: note, type: "Note", attributedTo: actor.id, to: [PUBLIC], content: `<p>from ${kind}</p>` },
  });
  const inbox = `${a.url}/inbox`;
  const res = await fetch(inbox, {
    method: "POST",
    headers: signedPostHeaders(actor, inbox, body, "draft-cavage"),
    body,
  });
  await res.arrayBuffer();
  assert.equal(res.status, 202);
  await a.settle();
  const found = await a.get("/api/v2/search", { token: leaver.token, query: { q: note, resolve: "true" } });
  assert.equal(found.status, 200, found.text);
  const status = found.body.statuses[0];
  assert.ok(status, `the note from ${kind} is stored`);
  return { id: status.id, accountId: status.account.id };
}

test("a suspended account's Delete reaches the servers of those it followed, replied to, boosted, favourited and mentioned, and no other", async () => {
  const notes = {} as Record<Kind, { id: string; accountId: string }>;
  for (const kind of KINDS) notes[kind] = await noteFrom(kind);
  const act = async (path: string, json?: Record<string, unknown>) => {
    const res = await a.post(path, { token: leaver.token, json });
    assert.equal(res.status, 200, `${path}: ${res.text}`);
  };
  await act(`/api/v1/accounts/${notes.followed.accountId}/follow`);
  await post(a, leaver, { status: "I disagree", in_reply_to_id: notes.repliedTo.id });
  await act(`/api/v1/statuses/${notes.boosted.id}/reblog`);
  await act(`/api/v1/statuses/${notes.favourited.id}/favourite`);
  await post(a, leaver, `hello @someone@${remotes.mentioned.host}`);
  await settle();

  // On b, bob's post gets a reply from leaver, who thereby knows b too.
  const bobsPost = await post(b, bob, "Who is still here?");
  const onA = await eventually(async () => {
    const res = await a.get("/api/v2/search", { token: leaver.token, query: { q: bobsPost.uri, resolve: "true" } });
    assert.equal(res.body.statuses?.length, 1, res.text);
    return res.body.statuses[0] as { id: string };
  });
  await post(a, leaver, { status: "I am", in_reply_to_id: onA.id });
  await settle();
  const leaverOnB = await lookupRemote(b, bob, a, leaver);
  const context = await b.get(`/api/v1/statuses/${bobsPost.id}/context`, { token: bob.token });
  assert.equal(context.body.descendants.length, 1, "the reply arrived on b");

  const suspended = await a.post(`/api/v1/admin/accounts/${leaver.accountId}/action`, {
    token: admin.token,
    json: { type: "suspend" },
  });
  assert.equal(suspended.status, 200, suspended.text);
  await settle();

  const leaverUri = `${a.url}/users/leaver`;
  const deletes = (kind: Kind) =>
    remotes[kind].deliveries
      .map((d) => JSON.parse(d.body))
      .filter((x) => x.type === "Delete" && x.actor === leaverUri && x.object === leaverUri);
  assert.deepEqual(Object.fromEntries(KINDS.map((kind) => [kind, deletes(kind).length])), {
    followed: 1,
    repliedTo: 1,
    boosted: 1,
    favourited: 1,
    mentioned: 1,
    stranger: 0,
  });

  // On b the account and its reply are gone.
  const account = await b.get(`/api/v1/accounts/${leaverOnB.id}`, { token: bob.token });
  assert.ok([404, 410].includes(account.status), `${account.status} ${account.text}`);
  const after = await b.get(`/api/v1/statuses/${bobsPost.id}/context`, { token: bob.token });
  assert.deepEqual(after.body.descendants, []);
});
