// The web admin's pages through HTTP: who may open them, the CSRF token every form needs, and the
// effect of each form on what the API answers.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Browser, formFields, PASSWORD, pageLang, signInToAdmin, submit } from "./browser.ts";
import { post } from "./fixtures.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let target: TestUser;
let reportId: string;
let deletedId: string;

before(async () => {
  server = await startServer({ env: { SHOW_DOMAIN_BLOCKS: "all" } });
  await server.user("plain");
  await server.user("mod", { role: "moderator" });
  await server.user("boss", { role: "admin" });
  const reporter = await server.user("reporter");
  target = await server.user("target");
  deletedId = (await post(server, target, "a rude remark, soon deleted")).id;
  const report = await server.post("/api/v1/reports", {
    token: reporter.token,
    json: { account_id: target.accountId, status_ids: [deletedId], comment: "Please look", category: "spam" },
  });
  assert.equal(report.status, 200, report.text);
  reportId = report.body.id;
  assert.equal((await server.delete(`/api/v1/statuses/${deletedId}`, { token: target.token })).status, 200);
});
after(() => server.close());

/** A browser signed in as `username` through the sign-in page the admin sends visitors to. */
const signedIn = (username: string, headers: Record<string, string> = {}) => signInToAdmin(server, username, headers);

/** An app's own token, as apps sign people up with. */
async function appToken(): Promise<string> {
  const app = (
    await server.post("/api/v1/apps", {
      json: { client_name: "Signups", redirect_uris: "urn:ietf:wg:oauth:2.0:oob", scopes: "read write" },
    })
  ).body;
  const res = await server.post("/oauth/token", {
    json: {
      grant_type: "client_credentials",
      client_id: app.client_id,
      client_secret: app.client_secret,
      scope: "write",
    },
  });
  assert.equal(res.status, 200, res.text);
  return res.body.access_token;
}

test("visitors who are not signed in are sent to sign in, and come back", async () => {
  const anonymous = new Browser(server);
  const res = await anonymous.get("/admin/reports?resolved=1");
  assert.equal(res.status, 303);
  assert.equal(res.headers.get("location"), "/auth/sign_in?return_to=%2Fadmin%2Freports%3Fresolved%3D1");
  const form = await anonymous.post(`/admin/reports/${reportId}/resolve`, {});
  assert.equal(form.status, 303);
  assert.match(form.headers.get("location")!, /^\/auth\/sign_in\?/);
  assert.equal((await server.get(`/api/v1/admin/reports/${reportId}`)).status, 401);
});

test("each section needs its role permission; others get a 403 page", async () => {
  const plain = await signedIn("plain");
  for (const path of ["/admin", "/admin/reports", `/admin/reports/${reportId}`, "/admin/settings"]) {
    const res = await plain.get(path);
    assert.equal(res.status, 403, path);
    assert.match(res.text, /Your role does not allow you to see this page/);
    assert.equal(res.headers.get("cache-control"), "no-store");
  }

  const mod = await signedIn("mod");
  const home = await mod.get("/admin");
  assert.equal(home.headers.get("location"), "/admin/dashboard");
  const reports = await mod.get("/admin/reports");
  assert.equal(reports.status, 200);
  assert.match(reports.text, /href="\/admin\/reports"/);
  assert.doesNotMatch(reports.text, /href="\/admin\/settings"/, "the menu shows only what the role may open");
  assert.equal((await mod.get("/admin/settings")).status, 403);
  assert.equal((await mod.get("/admin/domain_blocks")).status, 403);
  const forbidden = await mod.post("/admin/domain_blocks", {
    ...formFields(reports.text, "/auth/sign_out"),
    domain: "spam.example",
  });
  assert.equal(forbidden.status, 403);
  assert.equal((await server.get("/api/v1/instance/domain_blocks")).body.length, 0);

  const boss = await signedIn("boss");
  assert.equal((await boss.get("/admin")).headers.get("location"), "/admin/dashboard");
  assert.equal((await boss.get("/admin/settings")).status, 200);
});

test("every form needs the CSRF token of the session", async () => {
  const mod = await signedIn("mod");
  const path = `/admin/reports/${reportId}`;
  const fields = formFields((await mod.get(path)).text, `${path}/resolve`);
  assert.equal(fields.authenticity_token.length, 43);
  for (const token of [undefined, "forged", fields.authenticity_token.slice(1)]) {
    const res = await mod.post(`${path}/resolve`, token === undefined ? {} : { authenticity_token: token });
    assert.equal(res.status, 422);
    assert.match(res.text, /This form has expired/);
  }
  // Another moderator's token is no good in this session.
  const other = await signedIn("mod");
  const crossed = await mod.post(`${path}/resolve`, formFields((await other.get(path)).text, `${path}/resolve`));
  assert.equal(crossed.status, 422);
  const report = await server.rt.db
    .selectFrom("reports")
    .select("action_taken_at")
    .where("id", "=", reportId)
    .executeTakeFirstOrThrow();
  assert.equal(report.action_taken_at, null);
});

test("a moderator works a report: reads what it cites, takes it, recategorizes, resolves, reopens", async () => {
  const mod = await signedIn("mod");
  const list = await mod.get("/admin/reports");
  assert.match(list.text, new RegExp(`href="/admin/reports/${reportId}"`));
  assert.match(list.text, /@target/);
  const path = `/admin/reports/${reportId}`;
  const page = await mod.get(path);
  assert.equal(page.status, 200);
  assert.match(page.text, /a rude remark, soon deleted/, "the deleted status is still shown to moderators");
  assert.match(page.text, /Deleted since/);
  assert.match(page.text, /Please look/);

  const assigned = await submit(mod, path, `${path}/assign_to_self`);
  assert.equal(assigned.status, 303);
  assert.equal(assigned.headers.get("location"), `${path}?saved=1`);
  const after = await mod.get(assigned.headers.get("location")!);
  assert.match(after.text, /Your changes have been saved/);
  assert.ok(after.text.includes(`action="${path}/unassign"`));

  assert.equal((await submit(mod, path, `${path}/category`, { category: "legal" })).status, 303);
  const bad = await submit(mod, path, `${path}/category`, { category: "gossip" });
  assert.equal(bad.status, 422);
  assert.match(bad.text, /Category is not included in the list/);
  assert.equal((await submit(mod, path, `${path}/resolve`)).status, 303);

  const moderator = await server.user("modapi", { role: "moderator", scopes: ["admin:read"] });
  const api = (await server.get(`/api/v1/admin/reports/${reportId}`, { token: moderator.token })).body;
  assert.equal(api.category, "legal");
  assert.equal(api.action_taken, true);
  assert.equal(api.assigned_account.username, "mod");
  assert.equal(api.action_taken_by_account.username, "mod");

  const resolved = await mod.get("/admin/reports?resolved=1");
  assert.match(resolved.text, new RegExp(`href="/admin/reports/${reportId}"`));
  assert.doesNotMatch((await mod.get("/admin/reports")).text, new RegExp(`href="/admin/reports/${reportId}"`));
  assert.equal((await submit(mod, path, `${path}/reopen`)).status, 303);
  assert.equal(
    (await server.get(`/api/v1/admin/reports/${reportId}`, { token: moderator.token })).body.action_taken,
    false,
  );
  assert.equal((await mod.get("/admin/reports/12345")).status, 404);
  assert.equal((await mod.get("/admin/reports/nope")).status, 404);
});

test("a moderator finds an account and acts on it from a report; the audit log tells", async () => {
  const mod = await signedIn("mod");
  const found = await mod.get("/admin/accounts?username=targ");
  assert.equal(found.status, 200);
  assert.ok(found.text.includes(`href="/admin/accounts/${target.accountId}"`));
  assert.doesNotMatch(found.text, /@reporter/);
  const reportPage = await mod.get(`/admin/reports/${reportId}`);
  const link = `/admin/accounts/${target.accountId}?report_id=${reportId}`;
  assert.ok(reportPage.text.includes(`href="${link}"`), "the report leads to the account, with the report");
  const path = `/admin/accounts/${target.accountId}`;
  const page = await mod.get(link);
  assert.match(page.text, /target@example\.test/);
  const acted = await mod.post(`${path}/action`, {
    ...formFields(page.text, `${path}/action`),
    type: "silence",
    text: "Enough spam",
  });
  assert.equal(acted.status, 303);
  assert.equal(acted.headers.get("location"), `${path}?saved=1`);
  assert.match((await mod.get(path)).text, /Limited/);

  const api = await server.user("modapi2", { role: "moderator", scopes: ["read", "admin:read"] });
  const account = (await server.get(`/api/v1/admin/accounts/${target.accountId}`, { token: api.token })).body;
  assert.equal(account.silenced, true);
  assert.equal((await server.get(`/api/v1/admin/reports/${reportId}`, { token: api.token })).body.action_taken, true);
  const warned = (await server.get("/api/v1/notifications", { token: target.token })).body;
  assert.equal(warned[0]?.type, "moderation_warning");
  assert.equal(warned[0].moderation_warning.text, "Enough spam");

  const suspended = await submit(mod, path, `${path}/action`, { type: "suspend", text: "" });
  assert.equal(suspended.status, 303);
  assert.equal((await server.get(`/api/v1/accounts/${target.accountId}`, { token: api.token })).status, 410);
  assert.equal((await submit(mod, path, `${path}/unsilence`)).status, 303);
  assert.equal((await submit(mod, path, `${path}/unsuspend`)).status, 303);
  assert.equal((await server.get(`/api/v1/accounts/${target.accountId}`, { token: api.token })).status, 200);

  const log = await mod.get("/admin/audit_log");
  assert.equal(log.status, 200);
  const rows = [
    ...log.text.matchAll(
      /<tr><td>[^<]*<\/td><td>([^<]*)<\/td><td><code>([^<]*)<\/code><\/td><td>([^<]*)<\/td><td>([^<]*)<\/td><\/tr>/g,
    ),
  ].map((m) => m.slice(1));
  assert.deepEqual(rows.slice(0, 4), [
    ["@mod", "unsuspend", "Account target", ""],
    ["@mod", "unsilence", "Account target", ""],
    ["@mod", "suspend", "Account target", ""],
    ["@mod", "resolve", "Report #" + reportId, ""],
  ]);
  assert.ok(rows.some(([who, action, , note]) => who === "@mod" && action === "silence" && note === "Enough spam"));
  assert.equal((await (await signedIn("plain")).get("/admin/audit_log")).status, 403);
});

test("a moderator approves a pending sign-up, and may not act on an admin", async () => {
  const pending = await server.user("newcomer");
  await server.rt.db.updateTable("users").set({ approved: false }).where("id", "=", pending.userId).execute();
  const mod = await signedIn("mod");
  const list = await mod.get("/admin/accounts?status=pending");
  assert.ok(list.text.includes(`href="/admin/accounts/${pending.accountId}"`));
  assert.doesNotMatch(list.text, /@target/);
  const path = `/admin/accounts/${pending.accountId}`;
  assert.equal((await submit(mod, path, `${path}/approve`)).status, 303);
  const row = await server.rt.db
    .selectFrom("users")
    .select("approved")
    .where("id", "=", pending.userId)
    .executeTakeFirstOrThrow();
  assert.equal(Boolean(row.approved), true);
  assert.doesNotMatch((await mod.get(path)).text, new RegExp(`action="${path}/approve"`));

  const boss = (
    await server.rt.db.selectFrom("accounts").select("id").where("username", "=", "boss").executeTakeFirstOrThrow()
  ).id;
  const refused = await submit(mod, `/admin/accounts/${boss}`, `/admin/accounts/${boss}/action`, { type: "suspend" });
  assert.equal(refused.status, 403);
  assert.equal((await server.get(`/api/v1/accounts/${boss}`)).status, 200);
  assert.equal((await mod.get("/admin/accounts/123")).status, 404);
});

test("an admin blocks and unblocks a domain, and allows one; the audit log tells", async () => {
  const boss = await signedIn("boss");
  const path = "/admin/domain_blocks";
  const res = await submit(boss, path, path, {
    domain: "https://Spam.Example/about",
    severity: "suspend",
    reject_media: "1",
    reject_reports: "0", // (the helper reads every checkbox as ticked)
    obfuscate: "0",
    public_comment: "spam",
    private_comment: "seen in three reports",
  });
  assert.equal(res.status, 303);
  assert.deepEqual(
    (await server.get("/api/v1/instance/domain_blocks")).body.map((b: any) => [b.domain, b.severity, b.comment]),
    [["spam.example", "suspend", "spam"]],
  );
  const page = await boss.get(path);
  assert.match(page.text, /spam\.example/);
  assert.match(page.text, /seen in three reports/);
  const invalid = await submit(boss, path, path, { domain: "not a domain" });
  assert.equal(invalid.status, 422);
  const again = await submit(boss, path, path, { domain: "sub.spam.example", severity: "silence" });
  assert.equal(again.status, 422);
  assert.match(again.text, /You have already imposed stricter limits on spam\.example/);
  const block = await server.rt.db.selectFrom("domain_blocks").select("id").executeTakeFirstOrThrow();
  const removed = await boss.post(`${path}/${block.id}/remove`, formFields(page.text, `${path}/${block.id}/remove`));
  assert.equal(removed.status, 303);
  assert.deepEqual((await server.get("/api/v1/instance/domain_blocks")).body, []);
  assert.equal(
    (await boss.post(`${path}/nope/remove`, formFields(page.text, `${path}/${block.id}/remove`))).status,
    404,
  );

  const allows = "/admin/domain_allows";
  assert.equal((await submit(boss, allows, allows, { domain: "friends.example" })).status, 303);
  const allowPage = await boss.get(allows);
  assert.match(allowPage.text, /friends\.example/);
  const allow = await server.rt.db.selectFrom("domain_allows").select("id").executeTakeFirstOrThrow();
  assert.equal(
    (await boss.post(`${allows}/${allow.id}/remove`, formFields(allowPage.text, `${allows}/${allow.id}/remove`)))
      .status,
    303,
  );
  assert.equal((await server.rt.db.selectFrom("domain_allows").select("id").execute()).length, 0);

  const log = (await boss.get("/admin/audit_log")).text;
  for (const entry of [
    "destroy</code></td><td>DomainAllow friends.example",
    "create</code></td><td>DomainBlock spam.example",
  ])
    assert.ok(log.includes(entry), entry);
});

test("an admin blocks IP networks and email domains; sign-ups from them are refused", async () => {
  const boss = await signedIn("boss");
  const token = await appToken();
  const signUp = (username: string, email: string, ip: string) =>
    server.post("/api/v1/accounts", {
      token,
      headers: { "x-forwarded-for": ip },
      json: { username, email, password: PASSWORD, agreement: true, locale: "en" },
    });

  const ips = "/admin/ip_blocks";
  assert.equal((await (await signedIn("mod")).get(ips)).status, 403, "moderators may not manage blocks");
  const made = await submit(boss, ips, ips, {
    ip: "198.51.100.7/24",
    severity: "sign_up_block",
    expires_in: String(14 * 86_400),
    comment: "bot farm",
  });
  assert.equal(made.status, 303);
  const page = await boss.get(ips);
  assert.match(page.text, /198\.51\.100\.0\/24/);
  assert.match(page.text, /bot farm/);
  const bot = await signUp("bot", "bot@mail.example", "198.51.100.99");
  assert.deepEqual([bot.status, bot.body.error], [403, "This action is not allowed"]);
  assert.equal((await submit(boss, ips, ips, { ip: "not an address", severity: "no_access" })).status, 422);
  const row = await server.rt.db.selectFrom("ip_blocks").select(["id", "expires_at"]).executeTakeFirstOrThrow();
  assert.ok(row.expires_at !== null);
  assert.equal(
    (await boss.post(`${ips}/${row.id}/remove`, formFields(page.text, `${ips}/${row.id}/remove`))).status,
    303,
  );
  const human = await signUp("human", "human@mail.example", "198.51.100.99");
  assert.equal(human.status, 200, human.text);

  const emails = "/admin/email_domain_blocks";
  assert.equal((await submit(boss, emails, emails, { domain: "spam.test", allow_with_approval: "0" })).status, 303);
  const refused = await signUp("spammer", "x@mail.spam.test", "203.0.113.9");
  assert.equal(refused.status, 422);
  assert.equal(refused.body.details.email[0].error, "ERR_BLOCKED");
  const emailPage = await boss.get(emails);
  assert.match(emailPage.text, /spam\.test/);
  const block = await server.rt.db.selectFrom("email_domain_blocks").select("id").executeTakeFirstOrThrow();
  assert.equal(
    (await boss.post(`${emails}/${block.id}/remove`, formFields(emailPage.text, `${emails}/${block.id}/remove`)))
      .status,
    303,
  );
  assert.equal((await signUp("spammer", "x@mail.spam.test", "203.0.113.9")).status, 200);
});

test("an admin edits the server settings, texts and rules; the API shows them at once and after a restart", async () => {
  const boss = await signedIn("boss");
  const path = "/admin/settings";
  // The instance documents are prepared and cached: read them first, so that the change must drop them.
  assert.notEqual((await server.get("/api/v2/instance")).body.title, "Rookery Town");
  const res = await submit(boss, path, path, {
    title: "Rookery Town",
    description: "A server for the town",
    contact_email: "Staff@Town.Example",
    contact_username: "boss",
    registrations_mode: "none",
  });
  assert.equal(res.status, 303);
  const v2 = (await server.get("/api/v2/instance")).body;
  assert.equal(v2.title, "Rookery Town");
  assert.equal(v2.description, "A server for the town");
  assert.equal(v2.contact.email, "staff@town.example");
  assert.equal(v2.contact.account.username, "boss");
  assert.equal(v2.registrations.enabled, false);
  assert.equal((await server.get("/api/v1/instance")).body.title, "Rookery Town");
  const token = await appToken();
  const signUp = await server.post("/api/v1/accounts", {
    token,
    json: { username: "late", email: "late@example.test", password: PASSWORD, agreement: true, locale: "en" },
  });
  assert.deepEqual([signUp.status, signUp.body.error], [403, "This action is not allowed"], "sign-ups are closed");

  const blank = await submit(boss, path, path, { title: " " });
  assert.equal(blank.status, 422);
  assert.match(blank.text, /Title can(&#39;|')t be blank/);
  assert.equal((await server.get("/api/v2/instance")).body.title, "Rookery Town");

  assert.equal((await submit(boss, path, `${path}/texts`, { extended_description: "We are **nice**." })).status, 303);
  assert.match((await server.get("/api/v1/instance/extended_description")).body.content, /<strong>nice<\/strong>/);
  assert.equal(
    (await submit(boss, path, `${path}/terms`, { text: "Be kind.", effective_date: "2026-01-01" })).status,
    303,
  );
  assert.match((await server.get("/api/v1/instance/terms_of_service")).body.content, /Be kind\./);
  assert.equal((await submit(boss, path, "/admin/rules", { text: "No spam", hint: "None at all" })).status, 303);
  const rules = (await server.get("/api/v1/instance/rules")).body;
  assert.deepEqual(
    rules.map((r: any) => [r.text, r.hint]),
    [["No spam", "None at all"]],
  );
  assert.deepEqual(
    (await server.get("/api/v2/instance")).body.rules.map((r: any) => r.text),
    ["No spam"],
  );
  const page = (await boss.get(path)).text;
  assert.equal(
    (await boss.post(`/admin/rules/${rules[0].id}/remove`, formFields(page, `/admin/rules/${rules[0].id}/remove`)))
      .status,
    303,
  );
  assert.deepEqual((await server.get("/api/v1/instance/rules")).body, []);
  assert.equal(
    (await boss.post("/admin/rules/abc/remove", formFields(page, `/admin/rules/${rules[0].id}/remove`))).status,
    404,
  );

  // Changes to settings, texts and rules are in the audit log (Mastodon keeps none of them there).
  const log = (await boss.get("/admin/audit_log")).text;
  const entries = [
    ...log.matchAll(/<td><code>(\w+)<\/code><\/td><td>(Setting|Rule|TermsOfService) ([^<]*)<\/td>/g),
  ].map((m) => `${m[1]} ${m[2]} ${m[3]}`);
  assert.deepEqual(entries, [
    "destroy Rule No spam",
    "create Rule No spam",
    "create TermsOfService 2026-01-01",
    "update Setting extended_description",
    "update Setting site_title, site_short_description, site_contact_email, site_contact_username, registrations_mode",
  ]);

  await server.restart();
  assert.equal((await server.get("/api/v2/instance")).body.title, "Rookery Town");
  assert.equal((await server.get("/api/v2/instance")).body.registrations.enabled, false);
  const reopened = await submit(boss, path, path, {
    title: "Rookery Town",
    description: "",
    contact_email: "",
    contact_username: "",
    registrations_mode: "open",
  });
  assert.equal(reopened.status, 303);
  assert.equal((await server.get("/api/v2/instance")).body.registrations.enabled, true);
});

test("the pages speak the visitor's language", async () => {
  const mod = await signedIn("mod", { "accept-language": "de-DE,de;q=0.9,en;q=0.5" });
  const page = await mod.get("/admin/reports");
  assert.equal(pageLang(page.text), "de");
  assert.match(page.text, /Meldungen/);
  for (const [lang, word] of [
    ["fr", "Signalements"],
    ["es", "Denuncias"],
    ["en", "Reports"],
  ]) {
    const res = await mod.get(`/admin/reports?lang=${lang}`);
    assert.equal(pageLang(res.text), lang);
    assert.match(res.text, new RegExp(word));
  }
});
