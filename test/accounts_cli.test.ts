// What `rookery accounts create|approve|modify|list` do, through the functions the commands call,
// on whichever database the suite runs (test/cli.test.ts runs the commands themselves).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { BUILT_IN_ROLES } from "../src/domain/roles.ts";
import { createAccountAsOperator, listUsers, modifyUser } from "../src/services/moderation/admin_accounts.ts";
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

/** Signs in with the password grant, as an app would with the printed password. */
async function signIn(email: string, password: string): Promise<string> {
  const app = await server.post("/api/v1/apps", {
    json: { client_name: "CLI test", redirect_uris: "urn:ietf:wg:oauth:2.0:oob", scopes: "read write" },
  });
  const res = await server.post("/oauth/token", {
    form: {
      grant_type: "password",
      client_id: app.body.client_id,
      client_secret: app.body.client_secret,
      username: email,
      password,
      scope: "read write",
    },
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.access_token;
}

test("the first account: an owner, confirmed, who can sign in with the printed password", async () => {
  const { accountId, password } = await createAccountAsOperator(server.rt, {
    username: "admin",
    email: "Owner@Example.test",
    roleId: "3",
    confirmed: true,
    approved: true,
  });
  assert.match(password, /^[\w-]{24}$/);
  const token = await signIn("owner@example.test", password);
  const me = await server.get("/api/v1/accounts/verify_credentials", { token });
  assert.equal(me.status, 200);
  assert.equal(me.body.id, accountId);
  assert.equal(me.body.username, "admin", "the operator may use reserved names");
  assert.equal(me.body.role.name, "Owner");
  assert.deepEqual(me.body.roles, [{ id: "3", name: "Owner", color: "" }]);
});

test("an unconfirmed account gets the confirmation mail; approve and modify change what it may do", async () => {
  const { password } = await createAccountAsOperator(server.rt, {
    username: "later",
    email: "later@example.test",
    roleId: null,
    confirmed: false,
    approved: false,
  });
  const mail = await mailbox.mailTo("later@example.test");
  const link = new URL(/(http:\/\/\S+\/auth\/confirmation\?\S+)/.exec(mail.text)![1]);
  assert.equal(link.searchParams.has("redirect_to_app"), false, "no app to go back to");
  const token = await signIn("later@example.test", password);
  const me = () => server.get("/api/v1/accounts/verify_credentials", { token });

  assert.deepEqual((await me()).body, { error: "Your login is missing a confirmed e-mail address" });
  assert.equal((await server.get(link.pathname + link.search)).status, 200);
  assert.deepEqual((await me()).body, { error: "Your login is currently pending approval" });
  await modifyUser(server.rt, "LATER", { approve: true });
  assert.equal((await me()).status, 200);

  await modifyUser(server.rt, "later", { roleId: BUILT_IN_ROLES.moderator, disabled: true });
  assert.deepEqual((await me()).body, { error: "Your login is currently disabled" });
  await modifyUser(server.rt, "later", { disabled: false });
  const moderator = await me();
  assert.equal(moderator.body.role.name, "Moderator");

  const rows = await listUsers(server.rt);
  const later = rows.find((r) => r.username === "later")!;
  assert.equal(later.role, "Moderator");
  assert.equal(later.approved, true);
  assert.equal(later.disabled, false);
  assert.notEqual(later.confirmed_at, null);
});

test("--confirm confirms without the mail; mistakes are refused", async () => {
  await createAccountAsOperator(server.rt, {
    username: "quiet",
    email: "quiet@example.test",
    roleId: null,
    confirmed: false,
    approved: true,
  });
  await modifyUser(server.rt, "quiet", { confirm: true });
  const quiet = (await listUsers(server.rt)).find((r) => r.username === "quiet")!;
  assert.notEqual(quiet.confirmed_at, null);

  await assert.rejects(modifyUser(server.rt, "ghost", { approve: true }), { status: 404 });
  await assert.rejects(
    createAccountAsOperator(server.rt, {
      username: "QUIET",
      email: "other@example.test",
      roleId: null,
      confirmed: true,
      approved: true,
    }),
    { status: 422, message: "Validation failed: Username has already been taken" },
  );
  await assert.rejects(
    createAccountAsOperator(server.rt, {
      username: "bad name",
      email: "bad@example.test",
      roleId: null,
      confirmed: true,
      approved: true,
    }),
    { status: 422 },
  );
  await assert.rejects(
    createAccountAsOperator(server.rt, {
      username: "nomail",
      email: "not-an-address",
      roleId: null,
      confirmed: true,
      approved: true,
    }),
    { status: 422, message: "The email address is invalid" },
  );
});
