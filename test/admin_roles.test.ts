// Custom staff roles: made, edited and deleted through the web admin's forms (with Mastodon's rules
// on who may grant what), given to accounts with "Change role", and then obeyed by the admin API
// (the role's permissions, its position against other roles) and shown by the account entities.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { PERMISSIONS } from "../src/domain/roles.ts";
import { modifyUser } from "../src/services/moderation/admin_accounts.ts";
import { listAuditLog } from "../src/services/moderation/audit_log.ts";
import { roleOf } from "../src/services/roles/lookup.ts";
import { roleIdByName } from "../src/services/roles/manage.ts";
import { type Browser, formFields, signInToAdmin } from "./browser.ts";
import { assertEntity } from "./conformance.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let admin: TestUser;
let moderator: TestUser;
let triager: TestUser;
let senior: TestUser;
let plain: TestUser;
let boss: Browser;

const ADMIN_SCOPES = ["read", "write", "admin:read", "admin:write"];

before(async () => {
  server = await startServer();
  admin = await server.user("boss", { role: "admin", scopes: ADMIN_SCOPES });
  moderator = await server.user("mod", { role: "moderator", scopes: ADMIN_SCOPES });
  triager = await server.user("triager", { scopes: ADMIN_SCOPES });
  senior = await server.user("senior", { scopes: ADMIN_SCOPES });
  plain = await server.user("plain");
  boss = await signInToAdmin(server, "boss");
});
after(() => server.close());

/** Posts the form of `page` that goes to `action` with only its CSRF token and `values`. */
async function send(browser: Browser, page: string, action: string, values: Record<string, string | string[]>) {
  const fields = formFields((await browser.get(page)).text, action);
  return browser.post(action, { authenticity_token: fields.authenticity_token, ...values });
}

/** The id of the role the roles page lists under `name`, from its edit link. */
async function roleId(name: string): Promise<string> {
  const page = (await boss.get("/admin/roles")).text;
  const row = new RegExp(
    `<tr><td>(?:<span[^>]*></span> )?${name}</td>[\\s\\S]*?href="/admin/roles/(-?\\d+)/edit"`,
  ).exec(page);
  assert.ok(row, `${name} is listed`);
  return row[1];
}

async function createRole(values: Record<string, string | string[]>) {
  const res = await send(boss, "/admin/roles/new", "/admin/roles", values);
  assert.equal(res.status, 303, res.text);
  assert.equal(res.headers.get("location"), "/admin/roles?saved=1");
}

async function changeRole(target: TestUser, role: string) {
  const page = `/admin/accounts/${target.accountId}`;
  const res = await send(boss, page, `${page}/role`, { role_id: role });
  assert.equal(res.status, 303, res.text);
  assert.equal(res.headers.get("location"), `${page}?saved=1`);
}

const as = (user: TestUser, method: string, path: string, json?: Record<string, unknown>) =>
  server.request(method, path, { token: user.token, json });

test("roles are made, edited and deleted through the web admin's forms, and logged", async () => {
  const list = await boss.get("/admin/roles");
  assert.equal(list.status, 200);
  for (const name of ["Owner", "Admin", "Moderator", "Everyone \\(all users\\)"])
    assert.match(list.text, new RegExp(name));
  assert.match(list.text, /href="\/admin\/roles"[^>]*aria-current="page"/);
  assert.doesNotMatch(list.text, /href="\/admin\/roles\/3\/edit"/, "nobody edits the Owner");

  await createRole({
    name: "Triage",
    color: "#C0FFEE",
    position: "5",
    highlighted: "1",
    "permissions[]": ["manageReports"],
  });
  const triage = await roleId("Triage");
  const edit = await boss.get(`/admin/roles/${triage}/edit`);
  assert.equal(edit.status, 200);
  assert.match(edit.text, /value="manageReports" checked/);
  assert.match(edit.text, /value="administrator" disabled/, "an admin cannot grant what it lacks");
  assert.match(edit.text, /name="color" [^>]*value="#C0FFEE"/);

  await createRole({ name: "Scratch", color: "", position: "1", "permissions[]": [] });
  const scratch = await roleId("Scratch");
  const renamed = await send(boss, `/admin/roles/${scratch}/edit`, `/admin/roles/${scratch}`, {
    name: "Scratch pad",
    color: "#abc",
    position: "2",
    "permissions[]": ["manageBlocks", "viewDashboard"],
  });
  assert.equal(renamed.status, 303, renamed.text);
  const table = await boss.get("/admin/roles");
  assert.match(
    table.text,
    /<span class="swatch" style="background:#abc"[^>]*><\/span> Scratch pad<\/td><td>2<\/td><td>2<\/td>/,
  );
  const deleted = await send(boss, `/admin/roles/${scratch}/edit`, `/admin/roles/${scratch}/delete`, {});
  assert.equal(deleted.status, 303);
  assert.doesNotMatch((await boss.get("/admin/roles")).text, /Scratch pad/);
  assert.equal((await boss.get(`/admin/roles/${scratch}/edit`)).status, 404);

  const entries = await listAuditLog(
    server.rt,
    { accountId: admin.accountId, role: await roleOf(server.rt, "2") },
    { targetType: "UserRole" },
    { maxId: null, sinceId: null, minId: null, limit: 10 },
  );
  assert.deepEqual(entries.items.map((e) => [e.action, e.human_identifier, e.account_id]).reverse(), [
    ["create", "Triage", admin.accountId],
    ["create", "Scratch", admin.accountId],
    ["update", "Scratch pad", admin.accountId],
    ["destroy", "Scratch pad", admin.accountId],
  ]);
});

test("Mastodon's rules: no permission one lacks, no position above one's own, no Owner, no own permissions", async () => {
  const refused = async (action: string, page: string, values: Record<string, string | string[]>, message: RegExp) => {
    const res = await send(boss, page, action, values);
    assert.equal(res.status, 422, `${action} ${JSON.stringify(values)}`);
    assert.match(res.text, message);
  };
  const base = { name: "Too much", color: "", position: "3" };
  await refused(
    "/admin/roles",
    "/admin/roles/new",
    { ...base, "permissions[]": ["administrator"] },
    /Permissions cannot include permissions your current role does not possess/,
  );
  await refused(
    "/admin/roles",
    "/admin/roles/new",
    { ...base, position: "101", "permissions[]": [] },
    /Position cannot be higher than your current role/,
  );
  await refused(
    "/admin/roles",
    "/admin/roles/new",
    { ...base, name: "", "permissions[]": [] },
    /Name can&#39;t be blank|Name can't be blank/,
  );
  await refused("/admin/roles", "/admin/roles/new", { ...base, color: "red", "permissions[]": [] }, /Color is invalid/);
  await refused(
    "/admin/roles/-99",
    "/admin/roles/-99/edit",
    { "permissions[]": ["inviteUsers", "manageReports"] },
    /not safe for the base role/,
  );
  // Its own role: name and colour may change, its permissions may not.
  await refused(
    "/admin/roles/2",
    "/admin/roles/2/edit",
    { name: "Admin", color: "", position: "100", "permissions[]": ["manageRoles"] },
    /cannot be changed with your current role/,
  );
  assert.doesNotMatch((await boss.get("/admin/roles")).text, /Too much/);

  const owner = await boss.get("/admin/roles/3/edit");
  assert.equal(owner.status, 403);
  const moderatorPage = await (await signInToAdmin(server, "mod")).get("/admin/roles");
  assert.equal(moderatorPage.status, 403, "moderators may not manage roles");
  const noToken = await boss.post("/admin/roles", { name: "Forged", position: "1" });
  assert.equal(noToken.status, 422, "the CSRF token is needed");
  assert.doesNotMatch((await boss.get("/admin/roles")).text, /Forged/);
});

test("a custom role with only manage_reports reads reports and nothing of accounts", async (t) => {
  const triage = await roleId("Triage");
  await changeRole(triager, triage);
  const me = await as(triager, "GET", "/api/v1/accounts/verify_credentials");
  assert.equal(me.status, 200);
  assertEntity(t, "CredentialAccount", me.body);
  assert.deepEqual(me.body.role, {
    id: triage,
    name: "Triage",
    permissions: String(PERMISSIONS.manageReports | PERMISSIONS.inviteUsers),
    color: "#C0FFEE",
    highlighted: true,
  });
  assert.deepEqual(me.body.roles, [{ id: triage, name: "Triage", color: "#C0FFEE" }]);
  const profile = await as(plain, "GET", `/api/v1/accounts/${triager.accountId}`);
  assert.deepEqual(profile.body.roles, [{ id: triage, name: "Triage", color: "#C0FFEE" }]);

  assert.equal((await as(triager, "GET", "/api/v1/admin/reports")).status, 200);
  for (const [method, path] of [
    ["GET", "/api/v1/admin/accounts"],
    ["GET", "/api/v2/admin/accounts"],
    ["GET", `/api/v1/admin/accounts/${plain.accountId}`],
    ["POST", `/api/v1/admin/accounts/${plain.accountId}/action`],
    ["GET", "/api/v1/admin/domain_blocks"],
  ] as const) {
    const res = await as(triager, method, path, method === "POST" ? { type: "silence" } : undefined);
    assert.equal(res.status, 403, `${method} ${path}`);
    assert.deepEqual(res.body, { error: "This action is not allowed" });
  }
  assert.equal((await as(plain, "GET", `/api/v1/accounts/${plain.accountId}`)).body.limited, undefined);

  // A change to the role reaches its holders at once.
  const more = await send(boss, `/admin/roles/${triage}/edit`, `/admin/roles/${triage}`, {
    name: "Triage",
    color: "#C0FFEE",
    position: "5",
    highlighted: "1",
    "permissions[]": ["manageReports", "manageUsers"],
  });
  assert.equal(more.status, 303, more.text);
  assert.equal((await as(triager, "GET", "/api/v1/admin/accounts")).status, 200);
});

test("nobody acts on an account of a higher custom role; role_ids[] finds a role's holders", async (t) => {
  await createRole({ name: "Senior", color: "", position: "50", "permissions[]": ["manageReports", "manageUsers"] });
  const seniorRole = await roleId("Senior");
  await changeRole(senior, seniorRole);

  const refused = await as(moderator, "POST", `/api/v1/admin/accounts/${senior.accountId}/action`, { type: "silence" });
  assert.equal(refused.status, 403);
  const upward = await as(senior, "POST", `/api/v1/admin/accounts/${admin.accountId}/action`, { type: "silence" });
  assert.equal(upward.status, 403);
  const downward = await as(senior, "POST", `/api/v1/admin/accounts/${moderator.accountId}/action`, {
    type: "none",
    text: "a note",
  });
  assert.equal(downward.status, 200, downward.text);

  const found = await as(admin, "GET", `/api/v2/admin/accounts?role_ids[]=${seniorRole}`);
  assert.equal(found.status, 200);
  assert.deepEqual(
    found.body.map((a: { username: string }) => a.username),
    ["senior"],
  );
  assertEntity(t, "AdminAccount", found.body[0]);
  assert.deepEqual(found.body[0].role, {
    id: seniorRole,
    name: "Senior",
    permissions: String(PERMISSIONS.manageReports | PERMISSIONS.manageUsers | PERMISSIONS.inviteUsers),
    color: "",
    highlighted: false,
  });
  const both = await as(admin, "GET", `/api/v2/admin/accounts?role_ids[]=${seniorRole}&role_ids[]=1`);
  assert.deepEqual(both.body.map((a: { username: string }) => a.username).sort(), ["mod", "senior"]);
  const staff = await as(admin, "GET", "/api/v2/admin/accounts?permissions=staff");
  assert.deepEqual(staff.body.map((a: { username: string }) => a.username).sort(), ["boss", "mod"]);
  assert.deepEqual((await as(admin, "GET", "/api/v2/admin/accounts?role_ids[]=12345")).body, []);

  // The moderator may not give roles, nor see the form; the admin may not give a role above its own.
  const modPage = await (await signInToAdmin(server, "mod")).get(`/admin/accounts/${plain.accountId}`);
  assert.doesNotMatch(modPage.text, /\/role"/);
  const adminPage = await boss.get(`/admin/accounts/${plain.accountId}`);
  assert.doesNotMatch(adminPage.text, /<option value="3"/, "the Owner's role is not offered");
  const up = await send(boss, `/admin/accounts/${plain.accountId}`, `/admin/accounts/${plain.accountId}/role`, {
    role_id: "3",
  });
  assert.equal(up.status, 403);
  const own = await boss.get(`/admin/accounts/${admin.accountId}`);
  assert.doesNotMatch(own.text, /\/role"/, "nobody changes their own role");

  // Taking the role away leaves everyone's.
  await changeRole(senior, "");
  assert.deepEqual((await as(senior, "GET", "/api/v1/accounts/verify_credentials")).body.role, {
    id: "-99",
    name: "",
    permissions: String(PERMISSIONS.inviteUsers),
    color: "",
    highlighted: false,
  });
  assert.equal((await as(senior, "GET", "/api/v1/admin/reports")).status, 403);
  const log = await listAuditLog(
    server.rt,
    { accountId: admin.accountId, role: await roleOf(server.rt, "2") },
    { action: "change_role" },
    { maxId: null, sinceId: null, minId: null, limit: 10 },
  );
  assert.deepEqual(log.items.map((e) => [e.target_type, e.human_identifier]).slice(0, 2), [
    ["User", "senior"],
    ["User", "senior"],
  ]);
});

test("the command line gives roles by name, custom ones included", async () => {
  await modifyUser(server.rt, "plain", { roleId: await roleIdByName(server.rt, "senior") });
  const me = await as(plain, "GET", "/api/v1/accounts/verify_credentials");
  assert.equal(me.body.role.name, "Senior");
  assert.equal(await roleIdByName(server.rt, "Moderator"), "1");
  assert.equal(await roleIdByName(server.rt, "admin"), "2");
  await modifyUser(server.rt, "plain", { roleId: await roleIdByName(server.rt, "user") });
  assert.equal((await as(plain, "GET", "/api/v1/accounts/verify_credentials")).body.role.id, "-99");
  await assert.rejects(roleIdByName(server.rt, "nonesuch"), /No such role: nonesuch/);
});
