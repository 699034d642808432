// Quote activities as other servers write them, through the inbox: Mastodon 4.5's QuoteRequest,
// Accept with a QuoteAuthorization stamp, Delete of the stamp and Note with `quote`; Misskey's
// `_misskey_quote` and `quoteUrl`. The stand-in server keeps what Rookery sends it.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { post } from "./fixtures.ts";
import { type RemoteActor, type RemoteServer, signedPostHeaders, startRemoteServer } from "./remote_actors.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let alice: TestUser;
let remote: RemoteServer;
let mallory: RemoteActor;

before(async () => {
  server = await startServer({ env: { ALLOW_PRIVATE_ADDRESSES: "true" } });
  alice = await server.user("alice");
  remote = await startRemoteServer();
  mallory = remote.actor("mallory");
});
after(async () => {
  await server.close();
  await remote.close();
});

const PUBLIC = "https://www.w3.org/ns/activitystreams#Public";
/** The terms Mastodon 4.5 declares for quotes and interaction policies. */
const MASTODON_CONTEXT = [
  "https://www.w3.org/ns/activitystreams",
  {
    gts: "https://gotosocial.org/ns#",
    interactionPolicy: { "@id": "gts:interactionPolicy", "@type": "@id" },
    canQuote: { "@id": "gts:canQuote", "@type": "@id" },
    automaticApproval: { "@id": "gts:automaticApproval", "@type": "@id" },
    manualApproval: { "@id": "gts:manualApproval", "@type": "@id" },
    quote: { "@id": "https://w3id.org/fep/044f#quote", "@type": "@id" },
    quoteUri: "http://fedibird.com/ns#quoteUri",
    _misskey_quote: "https://misskey-hub.net/ns#_misskey_quote",
    quoteAuthorization: { "@id": "https://w3id.org/fep/044f#quoteAuthorization", "@type": "@id" },
    QuoteRequest: "https://w3id.org/fep/044f#QuoteRequest",
    QuoteAuthorization: "https://w3id.org/fep/044f#QuoteAuthorization",
    sensitive: "as:sensitive",
  },
];
/** What Misskey declares. */
const MISSKEY_CONTEXT = [
  "https://www.w3.org/ns/activitystreams",
  {
    sensitive: "as:sensitive",
    quoteUrl: "as:quoteUrl",
    fedibird: "http://fedibird.com/ns#",
    quoteUri: "fedibird:quoteUri",
    misskey: "https://misskey-hub.net/ns#",
    _misskey_quote: "misskey:_misskey_quote",
    _misskey_content: "misskey:_misskey_content",
  },
];

async function send(activity: unknown): Promise<void> {
  const inbox = `${server.url}/inbox`;
  const body = JSON.stringify(activity);
  const res = await fetch(inbox, {
    method: "POST",
    headers: signedPostHeaders(mallory, inbox, body, "draft-cavage"),
    body,
  });
  await res.arrayBuffer();
  assert.equal(res.status, 202);
  await server.settle();
}

/** A stamp this server made for one quote, which another status must not borrow. */
let ourStamp = "";

let n = 0;
function note(text: string, extra: Record<string, unknown> = {}) {
  n++;
  return {
    id: `${mallory.id}/statuses/${n}`,
    type: "Note",
    attributedTo: mallory.id,
    published: new Date().toISOString(),
    to: [PUBLIC],
    cc: [`${mallory.id}/followers`],
    content: `<p>${text}</p>`,
    ...extra,
  };
}
const create = (object: { id: string }, context: unknown = MASTODON_CONTEXT) => ({
  "@context": context,
  id: `${object.id}/activity`,
  type: "Create",
  actor: mallory.id,
  to: [PUBLIC],
  object,
});

const statusIdOf = async (uri: string) =>
  (await server.rt.db.selectFrom("statuses").select("id").where("uri", "=", uri).executeTakeFirstOrThrow()).id;

/** The activities delivered to the stand-in server of a type, parsed. */
function delivered(type: string): Record<string, any>[] {
  return remote.deliveries.map((d) => JSON.parse(d.body)).filter((a) => a.type === type);
}

test("a Mastodon QuoteRequest for a local post is accepted with a stamp, served at its URL, and notified", async () => {
  const original = await post(server, alice, "quotable");
  const quoting = note("my quote", { quote: original.uri, _misskey_quote: original.uri, quoteUri: original.uri });
  const requestId = `${mallory.id}/quote_requests/1`;
  await send({
    "@context": MASTODON_CONTEXT,
    id: requestId,
    type: "QuoteRequest",
    actor: mallory.id,
    object: original.uri,
    instrument: quoting,
  });
  const statusId = await statusIdOf(quoting.id);
  const seen = await server.get(`/api/v1/statuses/${statusId}`, { token: alice.token });
  assert.equal(seen.body.quote.state, "accepted");
  assert.equal(seen.body.quote.quoted_status.id, original.id);
  const notes = await server.get("/api/v1/notifications", { token: alice.token, query: { "types[]": "quote" } });
  assert.deepEqual(
    notes.body.map((x: { status: { id: string } }) => x.status.id),
    [statusId],
  );
  const [accept] = delivered("Accept").filter((a) => a.object?.id === requestId);
  assert.ok(accept, "an Accept went back");
  assert.equal(accept.actor, `${server.url}/users/alice`);
  assert.equal(accept.object.type, "QuoteRequest");
  assert.equal(accept.object.instrument, quoting.id);
  assert.match(accept.result, new RegExp(`^${server.url}/users/alice/quote_authorizations/\\d+$`));
  ourStamp = accept.result;
  const stamp = await server.get(new URL(accept.result).pathname, { headers: { accept: "application/activity+json" } });
  assert.equal(stamp.status, 200);
  assert.equal(stamp.body.type, "QuoteAuthorization");
  assert.equal(stamp.body.interactingObject, quoting.id);
  assert.equal(stamp.body.interactionTarget, original.uri);
  // Redelivered: nothing new.
  await send({
    "@context": MASTODON_CONTEXT,
    id: requestId,
    type: "QuoteRequest",
    actor: mallory.id,
    object: original.uri,
    instrument: quoting,
  });
  const again = await server.get("/api/v1/notifications", { token: alice.token, query: { "types[]": "quote" } });
  assert.equal(again.body.length, 1);
});

test("a QuoteRequest for a post whose policy says nobody is answered with a Reject", async () => {
  const original = await post(server, alice, { status: "not for quoting", quote_approval_policy: "nobody" });
  const requestId = `${mallory.id}/quote_requests/2`;
  await send({
    "@context": MASTODON_CONTEXT,
    id: requestId,
    type: "QuoteRequest",
    actor: mallory.id,
    object: original.uri,
    instrument: note("sneaky", { quote: original.uri }),
  });
  assert.equal(delivered("Reject").filter((a) => a.object?.id === requestId).length, 1);
  assert.equal(delivered("Accept").filter((a) => a.object?.id === requestId).length, 0);
});

test("a local quote of a Mastodon post: QuoteRequest out, Accept with a stamp in, Delete of the stamp revokes", async () => {
  const theirs = note("from mallory", {
    interactionPolicy: { canQuote: { automaticApproval: PUBLIC, manualApproval: [] } },
  });
  await send(create(theirs));
  const theirsId = await statusIdOf(theirs.id);
  const seen = await server.get(`/api/v1/statuses/${theirsId}`, { token: alice.token });
  assert.deepEqual(seen.body.quote_approval, { automatic: ["public"], manual: [], current_user: "automatic" });

  const quoting = await post(server, alice, { status: "quoting mallory", quoted_status_id: theirsId });
  assert.equal(quoting.quote.state, "pending");
  const [request] = delivered("QuoteRequest");
  assert.ok(request, "a QuoteRequest went out");
  assert.equal(request.actor, `${server.url}/users/alice`);
  assert.equal(request.object, theirs.id);
  assert.equal(request.instrument.id, quoting.uri);
  assert.equal(request.instrument.quote, theirs.id);

  const stampUri = `${mallory.id}/quote_authorizations/7`;
  await send({
    "@context": MASTODON_CONTEXT,
    id: `${mallory.id}#accepts/quote_requests/7`,
    type: "Accept",
    actor: mallory.id,
    to: `${server.url}/users/alice`,
    object: { id: request.id, type: "QuoteRequest", actor: request.actor, object: theirs.id, instrument: quoting.uri },
    result: stampUri,
  });
  const accepted = await server.get(`/api/v1/statuses/${quoting.id}`, { token: alice.token });
  assert.equal(accepted.body.quote.state, "accepted");
  assert.equal(accepted.body.quote.quoted_status.id, theirsId);
  const ours = await server.get(new URL(quoting.uri).pathname, { headers: { accept: "application/activity+json" } });
  assert.equal(ours.body.quoteAuthorization, stampUri);

  await send({
    "@context": MASTODON_CONTEXT,
    id: `${stampUri}#delete`,
    type: "Delete",
    actor: mallory.id,
    to: PUBLIC,
    object: stampUri,
  });
  const revoked = await server.get(`/api/v1/statuses/${quoting.id}`, { token: alice.token });
  assert.deepEqual(revoked.body.quote, { state: "revoked", quoted_status: null });
});

test("a Mastodon Note with `quote` whose stamp does not check out (missing, or ours for another quote) stays pending", async () => {
  const original = await post(server, alice, "quoted without asking");
  const quoting = note("unapproved", {
    quote: original.uri,
    quoteAuthorization: `${mallory.id}/quote_authorizations/404`,
  });
  await send(create(quoting));
  const shown = await server.get(`/api/v1/statuses/${await statusIdOf(quoting.id)}`, { token: alice.token });
  assert.deepEqual(shown.body.quote, { state: "pending", quoted_status: null });
  const borrowing = note("borrowed", { quote: original.uri, quoteAuthorization: ourStamp });
  await send(create(borrowing));
  const borrowed = await server.get(`/api/v1/statuses/${await statusIdOf(borrowing.id)}`, { token: alice.token });
  assert.deepEqual(borrowed.body.quote, { state: "pending", quoted_status: null });
});

test("Misskey quotes (`_misskey_quote`, `quoteUrl`): a self-quote is shown, another is not until approved", async () => {
  const first = note("misskey original");
  await send(create(first, MISSKEY_CONTEXT));
  const self = note(`RE: ${first.id}`, { _misskey_quote: first.id, quoteUrl: first.id, quoteUri: first.id });
  await send(create(self, MISSKEY_CONTEXT));
  const selfShown = await server.get(`/api/v1/statuses/${await statusIdOf(self.id)}`, { token: alice.token });
  assert.equal(selfShown.body.quote.state, "accepted");
  assert.equal(selfShown.body.quote.quoted_status.id, await statusIdOf(first.id));

  const original = await post(server, alice, "quoted by misskey");
  const legacy = note(`RE: ${original.uri}`, { _misskey_quote: original.uri, quoteUrl: original.uri });
  await send(create(legacy, MISSKEY_CONTEXT));
  const legacyId = await statusIdOf(legacy.id);
  const row = await server.rt.db
    .selectFrom("quotes")
    .select(["state", "legacy", "quoted_status_id"])
    .where("status_id", "=", legacyId)
    .executeTakeFirstOrThrow();
  assert.deepEqual(row, { state: "pending", legacy: true, quoted_status_id: original.id });
  const shown = await server.get(`/api/v1/statuses/${legacyId}`, { token: alice.token });
  assert.equal(shown.body.quote, null);
});

test("an Update of a Mastodon post changes who may quote it", async () => {
  const theirs = note("open at first", {
    interactionPolicy: { canQuote: { automaticApproval: PUBLIC, manualApproval: [] } },
  });
  await send(create(theirs));
  const id = await statusIdOf(theirs.id);
  assert.equal(
    (await server.get(`/api/v1/statuses/${id}`, { token: alice.token })).body.quote_approval.current_user,
    "automatic",
  );
  await send({
    "@context": MASTODON_CONTEXT,
    id: `${theirs.id}#updates/1`,
    type: "Update",
    actor: mallory.id,
    to: [PUBLIC],
    object: {
      ...theirs,
      updated: new Date().toISOString(),
      interactionPolicy: { canQuote: { automaticApproval: mallory.id, manualApproval: PUBLIC } },
    },
  });
  const seen = await server.get(`/api/v1/statuses/${id}`, { token: alice.token });
  assert.deepEqual(seen.body.quote_approval, { automatic: [], manual: ["public"], current_user: "manual" });
});

test("an Update that quotes another post, or none, changes the quote (Mastodon's `quote`, Misskey's `_misskey_quote`)", async () => {
  const first = note("first of mine");
  const second = note("second of mine");
  await send(create(first));
  await send(create(second));
  const unquoted = note("look at this");
  const quoting = { ...unquoted, quote: first.id, quoteUrl: first.id };
  await send(create(quoting));
  const id = await statusIdOf(quoting.id);
  const quoteOf = async () => (await server.get(`/api/v1/statuses/${id}`, { token: alice.token })).body.quote;
  assert.equal((await quoteOf()).quoted_status.id, await statusIdOf(first.id));

  let edits = 0;
  const update = (object: Record<string, unknown>, context: unknown = MASTODON_CONTEXT) => {
    edits++;
    return send({
      "@context": context,
      id: `${quoting.id}#updates/${edits}`,
      type: "Update",
      actor: mallory.id,
      to: [PUBLIC],
      object: { ...object, updated: new Date(Date.now() + edits * 1000).toISOString() },
    });
  };
  // The text stays; the quote alone changes, which is an edit.
  await update({ ...unquoted, quote: second.id, quoteUrl: second.id });
  const now = await quoteOf();
  assert.equal(now.state, "accepted");
  assert.equal(now.quoted_status.id, await statusIdOf(second.id));
  const history = await server.get(`/api/v1/statuses/${id}/history`, { token: alice.token });
  assert.equal(history.body.length, 2);

  await update({ ...unquoted, _misskey_quote: first.id, quoteUrl: first.id }, MISSKEY_CONTEXT);
  const legacy = await quoteOf();
  assert.equal(legacy.state, "accepted");
  assert.equal(legacy.quoted_status.id, await statusIdOf(first.id));

  await update(unquoted);
  assert.equal(await quoteOf(), null);
  const rows = await server.rt.db.selectFrom("quotes").select("id").where("status_id", "=", id).execute();
  assert.equal(rows.length, 0);
});
