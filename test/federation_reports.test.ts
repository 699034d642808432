// Reports across servers, three Rookery servers on loopback: a report on another server's account,
// with `forward`, reaches that server's moderators as a report from this server's instance actor
// (the reporter is not named), and, with `forward_to_domains`, the moderators of the server whose
// account the reported reply answers; without `forward` it stays here.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { signInToAdmin } from "./browser.ts";
import { eventually, settleAll, startFederatedServers, warmActor } from "./federation_rig.ts";
import { post } from "./fixtures.ts";
import type { TestServer, TestUser } from "./rig.ts";

let a: TestServer; // the reporter's server
let b: TestServer; // the reported account's
let c: TestServer; // the server of the account the reported reply answers
let reporter: TestUser;
let troll: TestUser;
let carol: TestUser;
const moderators: Record<string, TestUser> = {};

before(async () => {
  [a, b, c] = await startFederatedServers(3);
  reporter = await a.user("reporter");
  troll = await b.user("troll");
  carol = await c.user("carol");
  for (const [name, server] of Object.entries({ a, b, c })) {
    moderators[name] = await server.user("mod", { role: "moderator", scopes: ["read", "write", "admin:read"] });
  }
  for (const [server, user] of [
    [a, reporter],
    [b, troll],
    [c, carol],
  ] as const)
    await warmActor(server, user);
});
after(async () => {
  await Promise.all([a?.close(), b?.close(), c?.close()]);
});

const settle = () => settleAll([a, b, c]);
const host = (server: TestServer) => new URL(server.url).host;

/** The status at `uri`, as `server` resolves it for `user`. */
function resolveStatus(server: TestServer, user: TestUser, uri: string) {
  return eventually(async () => {
    const res = await server.get("/api/v2/search", { token: user.token, query: { q: uri, resolve: "true" } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.statuses.length, 1, res.text);
    return res.body.statuses[0] as { id: string; account: { id: string }; in_reply_to_account_id: string | null };
  });
}

async function reportsOn(server: TestServer, moderator: TestUser): Promise<any[]> {
  const res = await server.get("/api/v1/admin/reports", { token: moderator.token });
  assert.equal(res.status, 200, res.text);
  return res.body;
}

test("a report with forward reaches the reported account's server and, by forward_to_domains, the replied-to account's", async () => {
  const harbour = await post(c, carol, "The harbour is open again");
  const parentOnB = await resolveStatus(b, troll, harbour.uri);
  const reply = await post(b, troll, { status: "nobody cares", in_reply_to_id: parentOnB.id });
  await settle();
  const replyOnA = await resolveStatus(a, reporter, reply.uri);
  assert.ok(replyOnA.in_reply_to_account_id, "the parent's author is known on a");

  const res = await a.post("/api/v1/reports", {
    token: reporter.token,
    json: {
      account_id: replyOnA.account.id,
      status_ids: [replyOnA.id],
      comment: "Rude to everyone in the harbour thread",
      forward: true,
      forward_to_domains: [host(b), host(c)],
    },
  });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.forwarded, true);
  await settle();

  // On b: a report on troll, from a's instance actor, citing the reply; the moderators are told.
  const [onB] = await reportsOn(b, moderators.b);
  assert.ok(onB, "b's moderators see the report");
  assert.equal(onB.comment, "Rude to everyone in the harbour thread");
  assert.equal(onB.target_account.id, troll.accountId);
  assert.equal(onB.account.domain, host(a));
  assert.equal(onB.account.account.uri, `${a.url}/actor`);
  assert.notEqual(onB.account.username, "reporter");
  assert.deepEqual(
    onB.statuses.map((s: { id: string }) => s.id),
    [reply.id],
  );
  const heard = await b.get("/api/v1/notifications", {
    token: moderators.b.token,
    query: { "types[]": "admin.report" },
  });
  assert.deepEqual(
    heard.body.map((n: { report: { id: string } }) => n.report.id),
    [onB.id],
  );
  // The web admin's queue lists it, from a's instance actor.
  const browser = await signInToAdmin(b, "mod");
  const page = await browser.get("/admin/reports");
  assert.equal(page.status, 200);
  assert.ok(page.text.includes(`/admin/reports/${onB.id}`), page.text);
  assert.ok(page.text.includes(`@${onB.account.username}@${host(a)}`), page.text);

  // On c: a report on troll (of b), whose reply answers carol.
  const [onC] = await reportsOn(c, moderators.c);
  assert.ok(onC, "c's moderators see the report");
  assert.equal(onC.target_account.domain, host(b));
  assert.equal(onC.target_account.username, "troll");
  assert.equal(onC.account.domain, host(a));
  assert.equal(onC.statuses.length, 1);

  // a keeps its own report, with its reporter.
  const [onA] = await reportsOn(a, moderators.a);
  assert.equal(onA.account.username, "reporter");
});

test("without forward, a report stays on this server", async () => {
  const status = await post(b, troll, "another remark");
  const onA = await resolveStatus(a, reporter, status.uri);
  const res = await a.post("/api/v1/reports", {
    token: reporter.token,
    json: { account_id: onA.account.id, status_ids: [onA.id], comment: "kept here" },
  });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.forwarded, false);
  await settle();
  const onB = await reportsOn(b, moderators.b);
  assert.deepEqual(
    onB.map((r) => r.comment),
    ["Rude to everyone in the harbour thread"],
  );
});
