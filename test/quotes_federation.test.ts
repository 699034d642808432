// Quote posts between two Rookery servers (FEP-044f): a quote of a remote post is pending until the
// quoted author's server accepts the QuoteRequest with a stamp, which it serves; the quoted author
// is notified there, and revoking deletes the stamp, which the quoting server hears.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { eventually, settleAll, startFederatedServers, warmActor } from "./federation_rig.ts";
import { notificationsOf, post } from "./fixtures.ts";
import type { TestServer, TestUser } from "./rig.ts";

let a: TestServer;
let b: TestServer;
let alice: TestUser; // on a
let bob: TestUser; // on b

before(async () => {
  [a, b] = await startFederatedServers(2);
  alice = await a.user("alice");
  bob = await b.user("bob");
  await warmActor(a, alice);
  await warmActor(b, bob);
});
after(async () => {
  await Promise.all([a?.close(), b?.close()]);
});

const settle = () => settleAll([a, b]);

/** The id on `server` of the status at `uri`, fetched as a search with resolve would. */
function resolveStatus(server: TestServer, user: TestUser, uri: string): Promise<string> {
  return eventually(async () => {
    const res = await server.get("/api/v2/search", { token: user.token, query: { q: uri, resolve: "true" } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.statuses.length, 1, res.text);
    return res.body.statuses[0].id as string;
  });
}

test("a quote across servers is requested, accepted with a stamp, and revoked", async () => {
  const original = await post(b, bob, "quote me from afar");
  const onA = await resolveStatus(a, alice, original.uri);
  const seen = await a.get(`/api/v1/statuses/${onA}`, { token: alice.token });
  assert.deepEqual(seen.body.quote_approval, { automatic: ["public"], manual: [], current_user: "automatic" });

  const quoting = await post(a, alice, { status: "quoting bob", quoted_status_id: onA });
  assert.equal(quoting.quote.state, "pending");
  assert.equal(quoting.quote.quoted_status, null);
  await settle();

  const accepted = await a.get(`/api/v1/statuses/${quoting.id}`, { token: alice.token });
  assert.equal(accepted.body.quote.state, "accepted");
  assert.equal(accepted.body.quote.quoted_status.id, onA);
  const row = await a.rt.db
    .selectFrom("quotes")
    .select(["approval_uri", "activity_uri"])
    .where("status_id", "=", quoting.id)
    .executeTakeFirstOrThrow();
  assert.match(row.approval_uri ?? "", new RegExp(`^${b.url}/users/bob/quote_authorizations/\\d+$`));
  assert.match(row.activity_uri ?? "", new RegExp(`^${a.url}/users/alice/quote_requests/`));

  // The stamp is served where the Accept said.
  const stamp = await b.get(new URL(row.approval_uri!).pathname, {
    headers: { accept: "application/activity+json" },
  });
  assert.equal(stamp.status, 200, stamp.text);
  assert.equal(stamp.body.type, "QuoteAuthorization");
  assert.equal(stamp.body.attributedTo, `${b.url}/users/bob`);
  assert.equal(stamp.body.interactionTarget, original.uri);
  assert.equal(stamp.body.interactingObject, quoting.uri);

  // On b: bob was notified of alice's quote, which shows as accepted and is listed.
  const quoteOnB = await b.rt.db
    .selectFrom("statuses")
    .select("id")
    .where("uri", "=", quoting.uri)
    .executeTakeFirstOrThrow();
  const notes = await notificationsOf(b, bob.accountId);
  assert.deepEqual(
    notes.filter((n) => n.type === "quote").map((n) => n.status_id),
    [quoteOnB.id],
  );
  const listed = await b.get(`/api/v1/statuses/${original.id}/quotes`, { token: bob.token });
  assert.deepEqual(
    listed.body.map((s: { id: string }) => s.id),
    [quoteOnB.id],
  );
  assert.equal(listed.body[0].quote.state, "accepted");

  // Our Note names the quote and, once accepted, the stamp.
  const note = await a.get(new URL(quoting.uri).pathname, { headers: { accept: "application/activity+json" } });
  assert.equal(note.body.quote, original.uri);
  assert.equal(note.body._misskey_quote, original.uri);
  assert.equal(note.body.quoteAuthorization, row.approval_uri);

  const revoked = await b.post(`/api/v1/statuses/${original.id}/quotes/${quoteOnB.id}/revoke`, { token: bob.token });
  assert.equal(revoked.status, 200, revoked.text);
  assert.equal(revoked.body.quote.state, "revoked");
  await settle();
  const after = await a.get(`/api/v1/statuses/${quoting.id}`, { token: alice.token });
  assert.equal(after.body.quote.state, "revoked");
  const gone = await b.get(new URL(row.approval_uri!).pathname, { headers: { accept: "application/activity+json" } });
  assert.equal(gone.status, 404);
});

test("a QuoteRequest for a post nobody may quote is rejected, and the quote stays unapproved", async () => {
  const original = await post(b, bob, { status: "mine alone", quote_approval_policy: "nobody" });
  const onA = await resolveStatus(a, alice, original.uri);
  const refused = await a.post("/api/v1/statuses", {
    token: alice.token,
    json: { status: "quoting anyway", quoted_status_id: onA },
  });
  assert.equal(refused.status, 404, "the policy is known on a too");
  // Asked for by a server that does not know the policy: the quoted server rejects it.
  await a.rt.db
    .updateTable("statuses")
    .set({ quote_approval_policy: 2 << 16 })
    .where("id", "=", onA)
    .execute();
  const quoting = await post(a, alice, { status: "quoting anyway", quoted_status_id: onA });
  assert.equal(quoting.quote.state, "pending");
  await settle();
  const after = await a.get(`/api/v1/statuses/${quoting.id}`, { token: alice.token });
  assert.equal(after.body.quote.state, "rejected");
  const notes = await notificationsOf(b, bob.accountId);
  assert.equal(notes.filter((n) => n.type === "quote").length, 1, "only the accepted quote of the first test");
});
