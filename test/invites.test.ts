// Invite links: members whose role has invite_users make them at /invites; a sign-up through one
// needs no approval (and works when sign-ups are closed), uses it up, and moderators see who invited
// whom in the admin API.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { BUILT_IN_ROLES } from "../src/domain/roles.ts";
import { roleOf } from "../src/services/roles/lookup.ts";
import { updateRole } from "../src/services/roles/manage.ts";
import { Browser, formFields, PASSWORD } from "./browser.ts";
import { startMailbox } from "./mailbox.ts";
import { startServer, type TestServer } from "./rig.ts";

let server: TestServer;
let mailbox: Awaited<ReturnType<typeof startMailbox>>;

before(async () => {
  mailbox = await startMailbox();
  server = await startServer({
    env: { REGISTRATIONS_MODE: "approved", SMTP_URL: mailbox.url, SMTP_FROM: "rookery@mail.test" },
  });
});
after(async () => {
  await server.close();
  await mailbox.close();
});

async function signedIn(email: string, srv = server) {
  const browser = new Browser(srv);
  const page = await browser.get("/auth/sign_in");
  const res = await browser.post("/auth/sign_in", {
    ...formFields(page.text, "/auth/sign_in"),
    email,
    password: PASSWORD,
  });
  assert.equal(res.status, 303);
  return browser;
}

/** Makes an invite on the page; returns its link's path. */
async function makeInvite(browser: Browser, values: Record<string, string>) {
  const page = await browser.get("/invites");
  assert.equal(page.status, 200, page.text);
  const res = await browser.post("/invites", { ...formFields(page.text, "/invites"), ...values });
  assert.equal(res.status, 303);
  const list = await browser.get("/invites");
  const link = [...list.text.matchAll(/<code class="invite-link">(http:\/\/[^<]+)<\/code>/g)].at(0)![1];
  return new URL(link).pathname;
}

/** Opens an invite link in a new browser: the sign-up page it leads to. */
async function signUpThrough(srv: TestServer, link: string) {
  const browser = new Browser(srv);
  const opened = await browser.get(link);
  assert.equal(opened.status, 303);
  const form = await browser.get(opened.headers.get("location")!);
  return { form, browser };
}

test("a sign-up through an invite is approved at once, uses the invite, and names its inviter", async () => {
  const alice = await server.user("alice");
  const admin = await server.user("admin", { role: "admin", scopes: ["read", "admin:read"] });
  const browser = await signedIn("alice@example.test");
  assert.match((await browser.get("/settings/password")).text, /<a href="\/invites">Invite people<\/a>/);
  const link = await makeInvite(browser, { max_uses: "1", expires_in: "86400" });
  assert.match(link, /^\/invite\/[A-Za-z2-9]{8}$/);
  const list = (await browser.get("/invites")).text;
  assert.match(list, /<td>0 \/ 1<\/td>/);

  const { form, browser: stranger } = await signUpThrough(server, link);
  assert.equal(form.status, 200);
  assert.match(form.text, /@alice invited you: no approval is needed/);
  assert.doesNotMatch(form.text, /A moderator reviews every new account|name="reason"/);
  const res = await stranger.post("/auth/sign_up", {
    ...formFields(form.text, "/auth/sign_up"),
    username: "invitee",
    email: "invitee@example.test",
    password: PASSWORD,
    password_confirmation: PASSWORD,
  });
  assert.equal(res.status, 200, res.text);
  assert.match(res.text, /Follow it to confirm your address, then sign in\./);
  const user = await server.rt.db
    .selectFrom("users as u")
    .innerJoin("accounts as a", "a.id", "u.account_id")
    .select(["a.id", "u.approved"])
    .where("u.email", "=", "invitee@example.test")
    .executeTakeFirstOrThrow();
  assert.equal(user.approved, true, "approved although sign-ups need approval");
  assert.match((await browser.get("/invites")).text, /<td>1 \/ 1<\/td>\s*<td>Expired<\/td>/);

  const seen = await server.get(`/api/v1/admin/accounts/${user.id}`, { token: admin.token });
  assert.equal(seen.body.invited_by_account_id, alice.accountId);
  const invited = await server.get("/api/v2/admin/accounts", {
    token: admin.token,
    query: { invited_by: alice.accountId },
  });
  assert.deepEqual(
    invited.body.map((a: { id: string }) => a.id),
    [user.id],
  );
  const none = await server.get("/api/v2/admin/accounts", {
    token: admin.token,
    query: { invited_by: admin.accountId },
  });
  assert.deepEqual(none.body, []);

  // Used up: the link says so, and a sign-up with it waits for approval like any other.
  const late = await signUpThrough(server, link);
  assert.match(late.form.text, /This invite link is invalid or has expired\./);
  assert.match(late.form.text, /A moderator reviews every new account/);
});

test("an invite opens closed sign-ups; an expired one does not", async () => {
  const closed = await startServer({
    env: { REGISTRATIONS_MODE: "none", SMTP_URL: mailbox.url, SMTP_FROM: "rookery@mail.test" },
  });
  try {
    await closed.user("host");
    const browser = await signedIn("host@example.test", closed);
    const link = await makeInvite(browser, { max_uses: "", expires_in: "" });
    assert.match((await browser.get("/invites")).text, /<td>0<\/td>\s*<td>Never<\/td>/);
    const { form, browser: guest } = await signUpThrough(closed, link);
    assert.equal(form.status, 200);
    const res = await guest.post("/auth/sign_up", {
      ...formFields(form.text, "/auth/sign_up"),
      username: "guest",
      email: "guest@example.test",
      password: PASSWORD,
      password_confirmation: PASSWORD,
    });
    assert.equal(res.status, 200, res.text);

    const list = await browser.get("/invites");
    const action = /action="(\/invites\/\d+\/expire)"/.exec(list.text)![1];
    assert.equal((await browser.post(action, { authenticity_token: "forged" })).status, 422);
    assert.equal((await browser.post(action, formFields(list.text, action))).status, 303);
    const after = await signUpThrough(closed, link);
    assert.equal(after.form.status, 403);
    assert.match(after.form.text, /This invite link is invalid or has expired\./);
    const posted = await after.browser.post("/auth/sign_up", {
      username: "after",
      email: "after@example.test",
      invite_code: link.split("/").at(-1)!,
    });
    assert.equal(posted.status, 403);
  } finally {
    await closed.close();
  }
});

test("only roles with invite_users may invite", async () => {
  assert.equal((await server.get("/api/v1/instance")).body.invites_enabled, true);
  const owner = await server.user("owner", { role: "owner" });
  await server.user("plain");
  const browser = await signedIn("plain@example.test");
  // The base role loses invite_users: members without a staff role may no longer invite.
  await updateRole(
    server.rt,
    { accountId: owner.accountId, role: await roleOf(server.rt, BUILT_IN_ROLES.owner) },
    "-99",
    {
      name: "",
      color: "",
      position: -1,
      permissions: [],
      highlighted: false,
    },
  );
  const page = await browser.get("/invites");
  assert.equal(page.status, 403);
  assert.match(page.text, /Your role may not invite people\./);
  assert.doesNotMatch((await browser.get("/settings/password")).text, /href="\/invites"/);
  const token = formFields((await browser.get("/settings/password")).text, "/settings/password").authenticity_token;
  assert.equal(
    (await browser.post("/invites", { authenticity_token: token, max_uses: "1", expires_in: "" })).status,
    403,
  );
  const staff = await signedIn("owner@example.test");
  assert.equal((await staff.get("/invites")).status, 200);
});
