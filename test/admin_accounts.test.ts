// The admin API's accounts: finding them, reading one, and every action with its effects on the
// rest of the API; who may do what (token scope and role), and the audit log of it all.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { BUILT_IN_ROLES } from "../src/domain/roles.ts";
import { listAuditLog } from "../src/services/moderation/audit_log.ts";
import { roleOf } from "../src/services/roles/lookup.ts";
import { assertEntity } from "./conformance.ts";
import { follow, post } from "./fixtures.ts";
import { startMailbox } from "./mailbox.ts";
import { png, upload } from "./media_files.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let mailbox: Awaited<ReturnType<typeof startMailbox>>;
let owner: TestUser;
let admin: TestUser;
let moderator: TestUser;
let alice: TestUser;
let bob: TestUser;

const ADMIN = ["read", "write", "follow", "admin:read", "admin:write"];

before(async () => {
  mailbox = await startMailbox();
  server = await startServer({ env: { SMTP_URL: mailbox.url, SMTP_FROM: "rookery@mail.test" } });
  owner = await server.user("owner", { role: "owner", scopes: ADMIN });
  admin = await server.user("admin", { role: "admin", scopes: ADMIN });
  moderator = await server.user("mod", { role: "moderator", scopes: ADMIN });
  alice = await server.user("alice");
  bob = await server.user("bob");
});
after(async () => {
  await server.close();
  await mailbox.close();
});

const as = (user: TestUser, method: string, path: string, json?: Record<string, unknown>) =>
  server.request(method, path, { token: user.token, json });

const act = async (user: TestUser, target: TestUser, json: Record<string, unknown>) => {
  const res = await as(user, "POST", `/api/v1/admin/accounts/${target.accountId}/action`, json);
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.body, {});
};

const entity = async (target: TestUser) => {
  const res = await as(moderator, "GET", `/api/v1/admin/accounts/${target.accountId}`);
  assert.equal(res.status, 200, res.text);
  return res.body;
};

const log = async () =>
  (
    await listAuditLog(
      server.rt,
      { accountId: owner.accountId, role: await roleOf(server.rt, BUILT_IN_ROLES.owner) },
      {},
      {
        maxId: null,
        sinceId: null,
        minId: null,
        limit: 40,
      },
    )
  ).items.map((e) => [e.account_id, e.action, e.target_type, e.human_identifier, e.text]);

test("an account as moderators see it, complete", async (t) => {
  const res = await as(moderator, "GET", `/api/v1/admin/accounts/${alice.accountId}`);
  assert.equal(res.status, 200, res.text);
  assertEntity(t, "AdminAccount", res.body);
  const { account, created_at: _c, ...rest } = res.body;
  assert.equal(account.id, alice.accountId);
  assert.deepEqual(rest, {
    id: alice.accountId,
    username: "alice",
    domain: null,
    email: "alice@example.test",
    ip: null,
    ips: [],
    locale: "",
    invite_request: null,
    role: { id: "-99", name: "", permissions: "65536", color: "", highlighted: false },
    confirmed: true,
    approved: true,
    disabled: false,
    silenced: false,
    suspended: false,
    sensitized: false,
    created_by_application_id: null,
    invited_by_account_id: null,
  });
  assert.equal((await as(moderator, "GET", "/api/v1/admin/accounts/123")).status, 404);
});

test("listing with the v1 flags and the v2 filters", async () => {
  const ids = async (path: string, query: Record<string, string | string[]>) => {
    const res = await server.get(path, { token: moderator.token, query });
    assert.equal(res.status, 200, res.text);
    return res.body.map((a: any) => a.username).sort();
  };
  assert.deepEqual(await ids("/api/v1/admin/accounts", {}), ["admin", "alice", "bob", "mod", "owner"]);
  assert.deepEqual(await ids("/api/v1/admin/accounts", { staff: "true" }), ["admin", "mod", "owner"]);
  assert.deepEqual(await ids("/api/v1/admin/accounts", { username: "AL" }), ["alice"]);
  assert.deepEqual(await ids("/api/v1/admin/accounts", { email: "bob@" }), ["bob"]);
  assert.deepEqual(await ids("/api/v1/admin/accounts", { remote: "true" }), []);
  assert.deepEqual(await ids("/api/v2/admin/accounts", { origin: "local", permissions: "staff" }), [
    "admin",
    "mod",
    "owner",
  ]);
  assert.deepEqual(await ids("/api/v2/admin/accounts", { "role_ids[]": ["1", "3"] }), ["mod", "owner"]);
  assert.deepEqual(await ids("/api/v2/admin/accounts", { status: "pending" }), []);
  assert.deepEqual(await ids("/api/v2/admin/accounts", { invited_by: alice.accountId }), []);
  const bad = await server.get("/api/v2/admin/accounts", { token: moderator.token, query: { origin: "moon" } });
  assert.deepEqual([bad.status, bad.body], [400, { error: "Unknown origin: moon" }]);
  const page = await server.get("/api/v2/admin/accounts", { token: moderator.token, query: { limit: "2" } });
  assert.equal(page.body.length, 2);
  assert.match(page.headers.get("link") ?? "", /max_id=/);
});

test("both the token's scope and the role's permission are needed", async () => {
  // A user's token, even with the admin scopes, has no role to go with it.
  const user = await server.user("plain", { scopes: ADMIN });
  const denied = await as(user, "GET", "/api/v1/admin/accounts");
  assert.deepEqual([denied.status, denied.body], [403, { error: "This action is not allowed" }]);
  // Staff with a token lacking the admin scopes.
  const res = await as(alice, "GET", "/api/v1/admin/accounts");
  assert.equal(res.status, 403);
  const narrow = await server.user("narrow", { role: "moderator", scopes: ["admin:read:reports"] });
  const outside = await as(narrow, "GET", "/api/v1/admin/accounts");
  assert.deepEqual([outside.status, outside.body], [403, { error: "This action is outside the authorized scopes" }]);
  const granular = await server.user("granular", { role: "moderator", scopes: ["admin:read:accounts"] });
  assert.equal((await as(granular, "GET", "/api/v1/admin/accounts")).status, 200);
  assert.equal(
    (await as(granular, "POST", `/api/v1/admin/accounts/${bob.accountId}/action`, { type: "none" })).status,
    403,
  );
  assert.equal((await server.get("/api/v1/admin/accounts")).status, 401);
});

test("nobody acts on an equal or higher role, nor on themselves", async () => {
  for (const [actor, target] of [
    [moderator, admin],
    [moderator, owner],
    [admin, owner],
    [admin, admin],
  ] as const) {
    const res = await as(actor, "POST", `/api/v1/admin/accounts/${target.accountId}/action`, { type: "silence" });
    assert.deepEqual([res.status, res.body], [403, { error: "This action is not allowed" }], `${actor.username}`);
  }
  const bad = await as(moderator, "POST", `/api/v1/admin/accounts/${bob.accountId}/action`, { type: "explode" });
  assert.equal(bad.status, 422);
  assert.equal((await entity(admin)).silenced, false);
});

test("silence: off public timelines, out of search for non-followers, its follows need approval", async () => {
  const carol = await server.user("carol");
  await follow(server, bob, carol);
  const status = await post(server, carol, "Quiet words from carol");
  await act(moderator, carol, { type: "silence", text: "Please calm down" });
  assert.equal((await entity(carol)).silenced, true);

  const publicIds = async (user: TestUser) =>
    (await server.get("/api/v1/timelines/public", { token: user.token })).body.map((s: any) => s.id);
  assert.ok(!(await publicIds(alice)).includes(status.id));
  const account = await server.get(`/api/v1/accounts/${carol.accountId}`, { token: alice.token });
  assert.equal(account.body.limited, true);
  // Search finds it for its followers, and by its exact name.
  const found = async (user: TestUser, q: string) =>
    (await server.get("/api/v2/search", { token: user.token, query: { q, type: "accounts" } })).body.accounts.map(
      (a: any) => a.username,
    );
  assert.deepEqual(await found(alice, "car"), []);
  assert.deepEqual(await found(bob, "car"), ["carol"]);
  assert.deepEqual(await found(alice, "carol"), ["carol"]);
  // Whom it follows now must approve it.
  const rel = await as(carol, "POST", `/api/v1/accounts/${alice.accountId}/follow`);
  assert.equal(rel.body.requested, true);
  assert.equal(rel.body.following, false);
  // The silenced account still posts and reads, and it was told why.
  const notes = await server.get("/api/v1/notifications", { token: carol.token });
  const warning = notes.body.find((n: any) => n.type === "moderation_warning");
  assert.ok(warning, notes.text);
  assert.deepEqual(
    [warning.moderation_warning.action, warning.moderation_warning.text, warning.moderation_warning.target_account.id],
    ["silence", "Please calm down", carol.accountId],
  );
  assert.equal(warning.account.id, carol.accountId);

  const undo = await as(moderator, "POST", `/api/v1/admin/accounts/${carol.accountId}/unsilence`);
  assert.equal(undo.status, 200, undo.text);
  assert.equal(undo.body.silenced, false);
  const mail = await mailbox.mailTo("carol@example.test");
  assert.match(mail.text, /Your account has been limited/);
  assert.match(mail.text, /Please calm down/);
});

test("a warning is mailed in the account's own language", async () => {
  const erik = await server.user("erik");
  await server.rt.db.updateTable("users").set({ locale: "de" }).where("id", "=", erik.userId).execute();
  await act(moderator, erik, { type: "none", text: "Bitte freundlich bleiben" });
  const mail = await mailbox.mailTo("erik@example.test");
  assert.equal(mail.subject, `Du hast eine Verwarnung erhalten (${server.rt.config.localDomain})`);
  assert.match(mail.text, /Hinweis der Moderation:\r?\nBitte freundlich bleiben/);
});

test("sensitive: the account's media are forced sensitive", async () => {
  const dave = await server.user("dave");
  await act(moderator, dave, { type: "sensitive", send_email_notification: false });
  assert.equal((await entity(dave)).sensitized, true);
  const media = await upload(server, dave.token, await png(), "image/png");
  const res = await server.post("/api/v1/statuses", {
    token: dave.token,
    json: { status: "A picture", media_ids: [media.id], sensitive: false },
  });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.sensitive, true);
  const text = await post(server, dave, "Just words");
  assert.equal(text.sensitive, false);
  // No notification when asked not to send one.
  const notes = await server.get("/api/v1/notifications", { token: dave.token });
  assert.deepEqual(notes.body, []);
  const undo = await as(moderator, "POST", `/api/v1/admin/accounts/${dave.accountId}/unsensitive`);
  assert.equal(undo.body.sensitized, false);
});

test("disable: the user's tokens and sign-in are refused, the data stay", async () => {
  const erin = await server.user("erin");
  const status = await post(server, erin, "Still here while frozen");
  await act(moderator, erin, { type: "disable" });
  const refused = await server.get("/api/v1/accounts/verify_credentials", { token: erin.token });
  assert.deepEqual([refused.status, refused.body], [403, { error: "Your login is currently disabled" }]);
  assert.equal((await server.get(`/api/v1/statuses/${status.id}`, { token: alice.token })).status, 200);
  assert.equal((await entity(erin)).disabled, true);
  const undo = await as(moderator, "POST", `/api/v1/admin/accounts/${erin.accountId}/enable`);
  assert.equal(undo.body.disabled, false);
  assert.equal((await server.get("/api/v1/accounts/verify_credentials", { token: erin.token })).status, 200);
});

test("suspend: 410, hidden everywhere, reports resolved; unsuspend brings it back", async () => {
  const frank = await server.user("frank");
  await follow(server, alice, frank);
  const status = await post(server, frank, "Something rude");
  const report = await as(bob, "POST", "/api/v1/reports", { account_id: frank.accountId, status_ids: [status.id] });
  assert.equal(report.status, 200, report.text);
  await as(frank, "POST", `/api/v1/accounts/${alice.accountId}/follow`);
  await server.settle();

  await act(moderator, frank, { type: "suspend", report_id: report.body.id, text: "Spam" });
  const gone = await server.get(`/api/v1/accounts/${frank.accountId}`, { token: alice.token });
  assert.equal(gone.status, 410);
  assert.equal((await server.get(`/api/v1/statuses/${status.id}`, { token: alice.token })).status, 404);
  const home = await server.get("/api/v1/timelines/home", { token: alice.token });
  assert.ok(!home.body.some((s: any) => s.id === status.id));
  const followers = await server.get(`/api/v1/accounts/${alice.accountId}/followers`, { token: alice.token });
  assert.ok(!followers.body.some((a: any) => a.id === frank.accountId));
  const notes = await server.get("/api/v1/notifications", { token: alice.token });
  assert.ok(!notes.body.some((n: any) => n.account.id === frank.accountId));
  const rels = await server.get("/api/v1/accounts/relationships", {
    token: alice.token,
    query: { "id[]": frank.accountId },
  });
  assert.deepEqual(rels.body, []);
  assert.equal((await server.get("/api/v1/accounts/verify_credentials", { token: frank.token })).status, 403);
  const resolved = await as(moderator, "GET", `/api/v1/admin/reports/${report.body.id}`);
  assert.equal(resolved.body.action_taken, true);
  assert.equal((await entity(frank)).suspended, true);
  const purge = await server.rt.db
    .selectFrom("jobs")
    .select(["payload", "run_at"])
    .where("type", "=", "accounts.purge")
    .execute();
  const due = purge.find((j) => (j.payload as { accountId: string }).accountId === frank.accountId);
  assert.ok(due && new Date(due.run_at).getTime() > Date.now() + 29 * 86_400_000, "deleted in 30 days");

  const undo = await as(moderator, "POST", `/api/v1/admin/accounts/${frank.accountId}/unsuspend`);
  assert.equal(undo.body.suspended, false);
  assert.equal((await server.get(`/api/v1/accounts/${frank.accountId}`, { token: alice.token })).status, 200);
  assert.equal((await server.get(`/api/v1/statuses/${status.id}`, { token: alice.token })).status, 200);
});

test("DELETE: a suspended account's data go at once; only with the permission to delete data", async () => {
  const gina = await server.user("gina");
  const status = await post(server, gina, "Bye");
  await follow(server, alice, gina);
  const early = await as(admin, "DELETE", `/api/v1/admin/accounts/${gina.accountId}`);
  assert.equal(early.status, 403, "not suspended yet");
  await act(admin, gina, { type: "suspend" });
  assert.equal((await as(moderator, "DELETE", `/api/v1/admin/accounts/${gina.accountId}`)).status, 403);
  const res = await as(admin, "DELETE", `/api/v1/admin/accounts/${gina.accountId}`);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.id, gina.accountId);
  await server.settle();
  const left = await server.rt.db.selectFrom("statuses").select("id").where("id", "=", status.id).execute();
  assert.deepEqual(left, []);
  const users = await server.rt.db.selectFrom("users").select("id").where("account_id", "=", gina.accountId).execute();
  assert.deepEqual(users, []);
  assert.equal((await server.get(`/api/v1/accounts/${gina.accountId}`, { token: alice.token })).status, 410);
  const me = await server.get("/api/v1/accounts/verify_credentials", { token: alice.token });
  assert.equal(me.body.following_count, 1, "alice follows frank, not gina any more");
  // Its data gone, the suspension is final.
  assert.equal((await as(admin, "POST", `/api/v1/admin/accounts/${gina.accountId}/unsuspend`)).status, 403);
});

test("approve and reject pending sign-ups", async () => {
  const pending = await server.user("pending");
  const other = await server.user("other");
  await server.rt.db
    .updateTable("users")
    .set({ approved: false })
    .where("id", "in", [pending.userId, other.userId])
    .execute();
  const list = await server.get("/api/v2/admin/accounts", { token: moderator.token, query: { status: "pending" } });
  assert.deepEqual(list.body.map((a: any) => a.username).sort(), ["other", "pending"]);
  const approved = await as(moderator, "POST", `/api/v1/admin/accounts/${pending.accountId}/approve`);
  assert.equal(approved.body.approved, true);
  assert.equal((await as(moderator, "POST", `/api/v1/admin/accounts/${pending.accountId}/approve`)).status, 403);
  const rejected = await as(moderator, "POST", `/api/v1/admin/accounts/${other.accountId}/reject`);
  assert.equal(rejected.status, 200, rejected.text);
  assert.equal(rejected.body.username, "other");
  assert.equal((await as(moderator, "GET", `/api/v1/admin/accounts/${other.accountId}`)).status, 404);
});

test("the audit log records who did what to whom, with the text", async () => {
  const entries = await log();
  const mine = (
    await listAuditLog(
      server.rt,
      { accountId: owner.accountId, role: await roleOf(server.rt, BUILT_IN_ROLES.owner) },
      { accountId: moderator.accountId },
      {
        maxId: null,
        sinceId: null,
        minId: null,
        limit: 40,
      },
    )
  ).items.map((e) => [e.action, e.human_identifier, e.text]);
  assert.ok(entries.length >= mine.length);
  for (const expected of [
    ["silence", "carol", "Please calm down"],
    ["unsilence", "carol", null],
    ["sensitive", "dave", null],
    ["disable", "erin", null],
    ["enable", "erin", null],
    ["suspend", "frank", "Spam"],
    ["unsuspend", "frank", null],
    ["approve", "pending", null],
    ["reject", "other", null],
  ]) {
    assert.ok(
      mine.some((e) => JSON.stringify(e) === JSON.stringify(expected)),
      `${expected} in ${JSON.stringify(mine)}`,
    );
  }
  assert.ok(mine.some((e) => e[0] === "resolve"));
  // Moderators may read it; users may not.
  await assert.rejects(
    listAuditLog(
      server.rt,
      { accountId: alice.accountId, role: await roleOf(server.rt, BUILT_IN_ROLES.user) },
      {},
      { maxId: null, sinceId: null, minId: null, limit: 1 },
    ),
    /not allowed/,
  );
});
