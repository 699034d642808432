// The admin API's blocks: remote domains (with their effects on the domain's accounts and the follows
// they sever), allowed domains, email domains, canonical emails and IP networks, with their effects
// on sign-up and sign-in; who may manage them, and the audit log.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { BUILT_IN_ROLES } from "../src/domain/roles.ts";
import { listAuditLog } from "../src/services/moderation/audit_log.ts";
import { roleOf } from "../src/services/roles/lookup.ts";
import { assertEntity } from "./conformance.ts";
import { insertStatus, remoteAccount } from "./fixtures.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let admin: TestUser;
let moderator: TestUser;
let alice: TestUser;
let app: { client_id: string; client_secret: string };
let appToken: string;

const ADMIN = ["read", "write", "follow", "admin:read", "admin:write"];

before(async () => {
  server = await startServer();
  admin = await server.user("admin", { role: "admin", scopes: ADMIN });
  moderator = await server.user("mod", { role: "moderator", scopes: ADMIN });
  alice = await server.user("alice");
  app = (
    await server.post("/api/v1/apps", {
      json: { client_name: "Sign-ups", redirect_uris: "urn:ietf:wg:oauth:2.0:oob", scopes: "read write" },
    })
  ).body;
  const token = await server.post("/oauth/token", {
    form: { grant_type: "client_credentials", ...app, scope: "read write" },
  });
  appToken = token.body.access_token;
});
after(() => server.close());

const as = (user: TestUser, method: string, path: string, json?: Record<string, unknown>) =>
  server.request(method, path, { token: user.token, json });

const ok = async (user: TestUser, method: string, path: string, json?: Record<string, unknown>) => {
  const res = await as(user, method, path, json);
  assert.equal(res.status, 200, `${method} ${path}: ${res.text}`);
  return res.body;
};

const signUp = (username: string, email: string, ip = "203.0.113.50") =>
  server.post("/api/v1/accounts", {
    token: appToken,
    headers: { "x-forwarded-for": ip },
    form: { username, email, password: "long enough password", agreement: "true" },
  });

const approved = async (username: string) =>
  (
    await server.rt.db
      .selectFrom("users as u")
      .innerJoin("accounts as a", "a.id", "u.account_id")
      .select("u.approved")
      .where("a.username", "=", username)
      .executeTakeFirstOrThrow()
  ).approved;

const audit = async () =>
  (
    await listAuditLog(
      server.rt,
      { accountId: admin.accountId, role: await roleOf(server.rt, BUILT_IN_ROLES.admin) },
      {},
      { maxId: null, sinceId: null, minId: null, limit: 100 },
    )
  ).items.map((e) => `${e.action} ${e.target_type} ${e.human_identifier}`);

test("only staff who may manage federation and blocks reach these; moderators may not", async () => {
  for (const path of [
    "/api/v1/admin/domain_blocks",
    "/api/v1/admin/domain_allows",
    "/api/v1/admin/email_domain_blocks",
    "/api/v1/admin/canonical_email_blocks",
    "/api/v1/admin/ip_blocks",
  ]) {
    const res = await as(moderator, "GET", path);
    assert.deepEqual([res.status, res.body], [403, { error: "This action is not allowed" }], path);
    assert.equal((await as(alice, "GET", path)).status, 403, path);
    assert.deepEqual(await ok(admin, "GET", path), [], path);
  }
  const narrow = await server.user("narrow", { role: "admin", scopes: ["admin:read:ip_blocks"] });
  assert.equal((await as(narrow, "GET", "/api/v1/admin/ip_blocks")).status, 200);
  assert.equal((await as(narrow, "GET", "/api/v1/admin/domain_blocks")).status, 403);
});

test("domain blocks: limit, then suspend, severing follows; lifting undoes both", async (t) => {
  const remote = await remoteAccount(server, "far", "remote.test");
  const sub = await remoteAccount(server, "sub", "social.remote.test");
  const follow = await as(alice, "POST", `/api/v1/accounts/${remote}/follow`);
  assert.equal(follow.status, 200, follow.text);
  // Remote follows need acceptance; accept it as the remote server would.
  await server.rt.db.deleteFrom("follow_requests").execute();
  const now = new Date();
  await server.rt.db
    .insertInto("follows")
    .values([
      {
        id: "1",
        account_id: alice.accountId,
        target_account_id: remote,
        created_at: now,
        notify: false,
        show_reblogs: true,
        languages: null,
      },
      {
        id: "2",
        account_id: sub,
        target_account_id: alice.accountId,
        created_at: now,
        notify: false,
        show_reblogs: true,
        languages: null,
      },
    ] as never)
    .execute();

  const block = await ok(admin, "POST", "/api/v1/admin/domain_blocks", {
    domain: "remote.test",
    private_comment: "spam wave",
  });
  assertEntity(t, "AdminDomainBlock", block);
  assert.deepEqual(
    [block.domain, block.severity, block.private_comment, block.reject_media, block.digest.length],
    ["remote.test", "silence", "spam wave", false, 64],
  );
  const adminView = async (id: string) => ok(admin, "GET", `/api/v1/admin/accounts/${id}`);
  assert.deepEqual([(await adminView(remote)).silenced, (await adminView(sub)).silenced], [true, true]);

  const again = await as(admin, "POST", "/api/v1/admin/domain_blocks", { domain: "social.remote.test" });
  assert.equal(again.status, 422);
  assert.equal(again.body.error, "You have already imposed stricter limits on remote.test.");
  assert.equal(again.body.existing_domain_block.id, block.id);

  const stricter = await ok(admin, "PUT", `/api/v1/admin/domain_blocks/${block.id}`, { severity: "suspend" });
  assert.equal(stricter.severity, "suspend");
  assert.equal(stricter.private_comment, "spam wave");
  assert.deepEqual([(await adminView(remote)).suspended, (await adminView(remote)).silenced], [true, false]);
  assert.equal((await server.get(`/api/v1/accounts/${remote}`, { token: alice.token })).status, 410);
  const me = await ok(alice, "GET", "/api/v1/accounts/verify_credentials");
  assert.deepEqual([me.following_count, me.followers_count], [0, 0]);
  const notes = await ok(alice, "GET", "/api/v1/notifications");
  const severed = notes.find((n: any) => n.type === "severed_relationships");
  assert.ok(severed, JSON.stringify(notes));
  const { id: _id, created_at: _c, ...event } = severed.event;
  assert.deepEqual(event, {
    type: "domain_block",
    purged: false,
    target_name: "remote.test",
    followers_count: 1,
    following_count: 1,
  });
  const grouped = await ok(alice, "GET", "/api/v2/notifications");
  assert.equal(
    grouped.notification_groups.find((g: any) => g.type === "severed_relationships").event.target_name,
    "remote.test",
  );

  assert.equal((await ok(admin, "GET", `/api/v1/admin/domain_blocks/${block.id}`)).severity, "suspend");
  assert.deepEqual(await ok(admin, "DELETE", `/api/v1/admin/domain_blocks/${block.id}`), {});
  assert.deepEqual([(await adminView(remote)).suspended, (await adminView(sub)).silenced], [false, false]);
  assert.equal((await as(admin, "GET", `/api/v1/admin/domain_blocks/${block.id}`)).status, 404);
  const bad = await as(admin, "POST", "/api/v1/admin/domain_blocks", { domain: "not a domain" });
  assert.equal(bad.status, 422);
  const badSeverity = await as(admin, "POST", "/api/v1/admin/domain_blocks", { domain: "x.test", severity: "nuke" });
  assert.equal(badSeverity.status, 422);
  const log = await audit();
  for (const line of [
    "create DomainBlock remote.test",
    "update DomainBlock remote.test",
    "destroy DomainBlock remote.test",
  ]) {
    assert.ok(log.includes(line), line);
  }
});

test("a suspending domain block has its accounts' data deleted 30 days later, unless lifted first", async () => {
  const doomed = await remoteAccount(server, "doomed", "gone.test");
  const spared = await remoteAccount(server, "spared", "kept.test");
  const doomedStatus = await insertStatus(server, doomed, { local: false, content: "soon gone" });
  const sparedStatus = await insertStatus(server, spared, { local: false, content: "stays" });
  const gone = await ok(admin, "POST", "/api/v1/admin/domain_blocks", { domain: "gone.test", severity: "suspend" });
  const kept = await ok(admin, "POST", "/api/v1/admin/domain_blocks", { domain: "kept.test", severity: "suspend" });
  const purges = await server.rt.db
    .selectFrom("jobs")
    .select(["payload", "run_at"])
    .where("type", "=", "accounts.purge")
    .execute();
  for (const id of [doomed, spared]) {
    const job = purges.find((j) => (j.payload as { accountId: string }).accountId === id);
    assert.ok(job && new Date(job.run_at).getTime() > Date.now() + 29 * 86_400_000, `${id}: in 30 days`);
  }
  // kept.test is lifted before its time; then 31 days pass.
  await ok(admin, "DELETE", `/api/v1/admin/domain_blocks/${kept.id}`);
  await server.rt.db
    .updateTable("accounts")
    .set({ suspended_at: new Date(Date.now() - 31 * 86_400_000) })
    .where("id", "=", doomed)
    .execute();
  await server.rt.db.updateTable("jobs").set({ run_at: new Date() }).where("type", "=", "accounts.purge").execute();
  await server.settle();
  const left = await server.rt.db
    .selectFrom("statuses")
    .select("id")
    .where("id", "in", [doomedStatus, sparedStatus])
    .execute();
  assert.deepEqual(
    left.map((r) => r.id),
    [sparedStatus],
  );
  assert.equal((await server.get(`/api/v1/accounts/${doomed}`, { token: alice.token })).status, 410);
  assert.equal((await server.get(`/api/v1/accounts/${spared}`, { token: alice.token })).status, 200);
  await ok(admin, "DELETE", `/api/v1/admin/domain_blocks/${gone.id}`);
});

test("domain allows", async (t) => {
  const allow = await ok(admin, "POST", "/api/v1/admin/domain_allows", { domain: "Friends.test" });
  assertEntity(t, "AdminDomainAllow", allow);
  assert.equal(allow.domain, "friends.test");
  assert.equal((await ok(admin, "POST", "/api/v1/admin/domain_allows", { domain: "friends.test" })).id, allow.id);
  assert.deepEqual(
    (await ok(admin, "GET", "/api/v1/admin/domain_allows")).map((a: any) => a.id),
    [allow.id],
  );
  assert.equal((await ok(admin, "GET", `/api/v1/admin/domain_allows/${allow.id}`)).domain, "friends.test");
  assert.deepEqual(await ok(admin, "DELETE", `/api/v1/admin/domain_allows/${allow.id}`), {});
  assert.equal((await as(admin, "DELETE", `/api/v1/admin/domain_allows/${allow.id}`)).status, 404);
  assert.equal((await as(admin, "POST", "/api/v1/admin/domain_allows", {})).status, 422);
});

test("email domain blocks refuse sign-ups, or send them for approval", async (t) => {
  const block = await ok(admin, "POST", "/api/v1/admin/email_domain_blocks", { domain: "spam.test" });
  assertEntity(t, "AdminEmailDomainBlock", block);
  assert.equal(block.history.length, 7);
  const refused = await signUp("spammer", "x@mail.spam.test");
  assert.equal(refused.status, 422, refused.text);
  assert.deepEqual(refused.body.details.email, [
    { error: "ERR_BLOCKED", description: "uses a disallowed e-mail provider" },
  ]);
  assert.equal((await as(admin, "POST", "/api/v1/admin/email_domain_blocks", { domain: "spam.test" })).status, 422);
  // Its history counts the attempts it met today, and the addresses they came from.
  assert.equal((await signUp("spammer2", "y@spam.test", "203.0.113.51")).status, 422);
  assert.equal((await signUp("spammer3", "z@SPAM.test", "203.0.113.51")).status, 422);
  assert.equal((await signUp("honest", "h@spam.test.example", "203.0.113.51")).status, 200);
  const history = (await ok(admin, "GET", `/api/v1/admin/email_domain_blocks/${block.id}`)).history;
  const today = Math.floor(Date.now() / 86_400_000) * 86_400;
  assert.deepEqual(history[0], { day: String(today), accounts: "2", uses: "3" });
  assert.deepEqual(
    history.slice(1).map((d: any) => [d.accounts, d.uses]),
    Array.from({ length: 6 }, () => ["0", "0"]),
  );
  assert.equal(history[6].day, String(today - 6 * 86_400));

  await ok(admin, "POST", "/api/v1/admin/email_domain_blocks", { domain: "slow.test", allow_with_approval: true });
  const pending = await signUp("patient", "p@slow.test");
  assert.equal(pending.status, 200, pending.text);
  assert.equal(await approved("patient"), false);

  assert.equal((await ok(admin, "GET", `/api/v1/admin/email_domain_blocks/${block.id}`)).domain, "spam.test");
  assert.equal((await ok(admin, "GET", "/api/v1/admin/email_domain_blocks")).length, 2);
  assert.deepEqual(await ok(admin, "DELETE", `/api/v1/admin/email_domain_blocks/${block.id}`), {});
  assert.equal((await signUp("reformed", "x@mail.spam.test")).status, 200);
});

test("canonical email blocks catch every spelling of an address", async (t) => {
  const block = await ok(admin, "POST", "/api/v1/admin/canonical_email_blocks", {
    email: "John.Doe+promo@Example.test",
  });
  assertEntity(t, "AdminCanonicalEmailBlock", block);
  const matches = await ok(admin, "POST", "/api/v1/admin/canonical_email_blocks/test", {
    email: "johndoe@example.test",
  });
  assert.deepEqual(
    matches.map((b: any) => b.id),
    [block.id],
  );
  assert.deepEqual(
    await ok(admin, "POST", "/api/v1/admin/canonical_email_blocks/test", { email: "jane@example.test" }),
    [],
  );
  const refused = await signUp("johnny", "j.o.h.n.doe+again@example.test");
  assert.equal(refused.status, 422, refused.text);
  assert.deepEqual(refused.body.details.email, [{ error: "ERR_TAKEN", description: "has already been taken" }]);

  const byHash = await ok(admin, "POST", "/api/v1/admin/canonical_email_blocks", {
    canonical_email_hash: "a".repeat(64),
  });
  assert.equal(byHash.canonical_email_hash, "a".repeat(64));
  assert.equal(
    (await as(admin, "POST", "/api/v1/admin/canonical_email_blocks", { canonical_email_hash: "nope" })).status,
    422,
  );
  assert.equal((await ok(admin, "GET", `/api/v1/admin/canonical_email_blocks/${block.id}`)).id, block.id);
  assert.deepEqual(await ok(admin, "DELETE", `/api/v1/admin/canonical_email_blocks/${block.id}`), {});
  assert.equal((await signUp("johnny", "j.o.h.n.doe+again@example.test")).status, 200);
});

test("IP blocks: sign-ups refused or held for approval, sign-in refused", async (t) => {
  const block = await ok(admin, "POST", "/api/v1/admin/ip_blocks", {
    ip: "198.51.100.7/24",
    severity: "sign_up_block",
    comment: "bot farm",
  });
  assertEntity(t, "AdminIpBlock", block);
  assert.deepEqual(
    [block.ip, block.severity, block.comment, block.expires_at],
    ["198.51.100.0/24", "sign_up_block", "bot farm", null],
  );
  const refused = await signUp("bot1", "bot1@mail.test", "198.51.100.99");
  assert.deepEqual([refused.status, refused.body], [403, { error: "This action is not allowed" }]);
  assert.equal((await signUp("human", "human@mail.test", "198.51.101.1")).status, 200);

  const changed = await ok(admin, "PUT", `/api/v1/admin/ip_blocks/${block.id}`, {
    severity: "sign_up_requires_approval",
    expires_in: 3600,
  });
  assert.equal(changed.severity, "sign_up_requires_approval");
  assert.ok(changed.expires_at);
  assert.equal((await signUp("bot2", "bot2@mail.test", "198.51.100.3")).status, 200);
  assert.equal(await approved("bot2"), false);

  const noAccess = await ok(admin, "POST", "/api/v1/admin/ip_blocks", { ip: "2001:db8::/32", severity: "no_access" });
  // No access means no request at all is answered, pages and API alike, with or without a token.
  const from = (ip: string, path: string) =>
    server.get(path, { token: alice.token, headers: { "x-forwarded-for": ip } });
  for (const path of ["/api/v1/instance", "/api/v1/accounts/verify_credentials", "/about", "/.well-known/nodeinfo"]) {
    const refusedHere = await from("2001:db8::5", path);
    assert.deepEqual([refusedHere.status, refusedHere.body], [403, { error: "Forbidden" }], path);
    assert.equal((await from("2001:db9::5", path)).status, 200, path);
  }
  const signIn = await server.post("/oauth/token", {
    headers: { "x-forwarded-for": "2001:db8::5" },
    form: {
      grant_type: "password",
      ...app,
      username: "alice@example.test",
      password: "correct horse battery staple",
      scope: "read",
    },
  });
  assert.deepEqual([signIn.status, signIn.body], [403, { error: "Forbidden" }]);
  const elsewhere = await server.post("/oauth/token", {
    headers: { "x-forwarded-for": "2001:db9::5" },
    form: {
      grant_type: "password",
      ...app,
      username: "alice@example.test",
      password: "correct horse battery staple",
      scope: "read",
    },
  });
  assert.equal(elsewhere.status, 200, elsewhere.text);

  assert.equal(
    (await as(admin, "POST", "/api/v1/admin/ip_blocks", { ip: "198.51.100.0/24", severity: "no_access" })).status,
    422,
  );
  assert.equal(
    (await as(admin, "POST", "/api/v1/admin/ip_blocks", { ip: "300.1.1.1", severity: "no_access" })).status,
    422,
  );
  assert.equal((await as(admin, "POST", "/api/v1/admin/ip_blocks", { ip: "10.0.0.1", severity: "ban" })).status, 422);
  assert.equal((await ok(admin, "GET", "/api/v1/admin/ip_blocks")).length, 2);
  // A change reaches the in-memory list at once.
  await ok(admin, "PUT", `/api/v1/admin/ip_blocks/${noAccess.id}`, { severity: "sign_up_block" });
  assert.equal((await from("2001:db8::5", "/api/v1/instance")).status, 200);
  await ok(admin, "PUT", `/api/v1/admin/ip_blocks/${noAccess.id}`, { severity: "no_access" });
  assert.equal((await from("2001:db8::5", "/api/v1/instance")).status, 403);
  await ok(admin, "DELETE", `/api/v1/admin/ip_blocks/${noAccess.id}`);
  assert.equal((await from("2001:db8::5", "/api/v1/instance")).status, 200);
  assert.deepEqual(await ok(admin, "DELETE", `/api/v1/admin/ip_blocks/${block.id}`), {});
  assert.ok((await audit()).includes("create IpBlock 198.51.100.0/24"));
});
