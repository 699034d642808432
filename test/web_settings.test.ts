// The settings pages of a signed-in member: the password, the email address, the sessions, the
// authorized apps (a revoked app's token answers 401 at once), and the mail about a sign-in from a
// new address or device.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Browser, formFields, PASSWORD } from "./browser.ts";
import { startMailbox } from "./mailbox.ts";
import { startServer, type TestServer } from "./rig.ts";

let server: TestServer;
let mailbox: Awaited<ReturnType<typeof startMailbox>>;
const CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36";
const FIREFOX = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0";

before(async () => {
  mailbox = await startMailbox();
  server = await startServer({ env: { SMTP_URL: mailbox.url, SMTP_FROM: "rookery@mail.test" } });
});
after(async () => {
  await server.close();
  await mailbox.close();
});

async function signIn(email: string, password = PASSWORD, headers: Record<string, string> = {}) {
  const browser = new Browser(server, headers);
  const page = await browser.get("/auth/sign_in");
  const res = await browser.post("/auth/sign_in", { ...formFields(page.text, "/auth/sign_in"), email, password });
  return { browser, res };
}

async function signedIn(email: string, headers: Record<string, string> = {}) {
  const { browser, res } = await signIn(email, PASSWORD, headers);
  assert.equal(res.status, 303);
  return browser;
}

async function submitOn(browser: Browser, page: string, action: string, values: Record<string, string>) {
  const html = (await browser.get(page)).text;
  return browser.post(action, { ...formFields(html, action), ...values });
}

const mailsTo = async (address: string) => {
  await server.settle();
  return mailbox.mails.filter((m) => m.to.includes(address));
};

test("settings need a session: a visitor is sent to sign in, and back", async () => {
  const browser = new Browser(server);
  const res = await browser.get("/settings/sessions");
  assert.equal(res.status, 303);
  assert.equal(res.headers.get("location"), "/auth/sign_in?return_to=%2Fsettings%2Fsessions&lang=en");
  assert.equal((await server.get("/settings")).headers.get("cache-control"), "no-store");
  await server.user("visitor");
  const page = await browser.get(res.headers.get("location")!);
  const signedInRes = await browser.post("/auth/sign_in", {
    ...formFields(page.text, "/auth/sign_in"),
    email: "visitor@example.test",
    password: PASSWORD,
  });
  assert.equal(signedInRes.headers.get("location"), "/settings/sessions");
});

test("changing the password asks the current one, and ends the other sessions", async () => {
  await server.user("pat");
  const other = await signedIn("pat@example.test");
  const browser = await signedIn("pat@example.test");
  const values = { password: "another long password", password_confirmation: "another long password" };

  const wrong = await submitOn(browser, "/settings/password", "/settings/password", {
    ...values,
    current_password: "not it",
  });
  assert.equal(wrong.status, 422);
  assert.match(wrong.text, /The current password is not right\./);
  const mismatch = await submitOn(browser, "/settings/password", "/settings/password", {
    current_password: PASSWORD,
    password: "another long password",
    password_confirmation: "something else",
  });
  assert.equal(mismatch.status, 422);
  assert.match(mismatch.text, /does not match the password/);
  const forged = await browser.post("/settings/password", {
    ...formFields((await browser.get("/settings/password")).text, "/settings/password"),
    authenticity_token: "forged",
    current_password: PASSWORD,
    ...values,
  });
  assert.equal(forged.status, 422);
  assert.match(forged.text, /This form has expired/);
  assert.equal((await signIn("pat@example.test")).res.status, 303, "nothing changed yet");

  const ok = await submitOn(browser, "/settings/password", "/settings/password", {
    ...values,
    current_password: PASSWORD,
  });
  assert.equal(ok.status, 303);
  assert.equal(ok.headers.get("location"), "/settings/password?saved=1");
  assert.match((await browser.get("/settings/password?saved=1")).text, /Your changes are saved\./);
  assert.equal((await other.get("/settings/password")).status, 303, "the other session ended");
  assert.equal((await signIn("pat@example.test")).res.status, 401);
  assert.equal((await signIn("pat@example.test", "another long password")).res.status, 303);
});

test("changing the email address: confirmed by a link to the new one, the old one told", async () => {
  await server.user("eve");
  await server.user("holder");
  const browser = await signedIn("eve@example.test");
  const taken = await submitOn(browser, "/settings/email", "/settings/email", {
    email: "holder@example.test",
    current_password: PASSWORD,
  });
  assert.equal(taken.status, 422);
  assert.match(taken.text, /New email address: is already taken/);
  const wrong = await submitOn(browser, "/settings/email", "/settings/email", {
    email: "eve.new@example.test",
    current_password: "nope",
  });
  assert.equal(wrong.status, 422);

  const ok = await submitOn(browser, "/settings/email?lang=es", "/settings/email", {
    email: "Eve.New@Example.test",
    current_password: PASSWORD,
  });
  assert.equal(ok.status, 303);
  const page = await browser.get("/settings/email");
  assert.match(page.text, /Your address is eve@example\.test\./);
  assert.match(page.text, /eve\.new@example\.test waits for confirmation/);

  const [toNew] = await mailsTo("eve.new@example.test");
  assert.match(toNew.raw, /Subject: =\?UTF-8\?Q\?Confirma_tu_nueva|Subject: Confirma tu nueva/);
  const [toOld] = await mailsTo("eve@example.test");
  assert.match(toOld.text, /va a cambiar a eve\.new@example\.test/);

  // Until confirmed, the old address signs in and the new one does not.
  assert.equal((await signIn("eve.new@example.test")).res.status, 401);
  assert.equal((await signIn("eve@example.test")).res.status, 303);
  const link = new URL(/(http:\/\/\S+\/auth\/confirmation\?confirmation_token=[\w-]+)/.exec(toNew.text)![1]);
  const confirmed = await browser.get(link.pathname + link.search);
  assert.equal(confirmed.status, 200);
  assert.match(confirmed.text, /Your new email address is confirmed/);
  assert.equal((await signIn("eve.new@example.test")).res.status, 303);
  assert.equal((await signIn("eve@example.test")).res.status, 401);
  assert.equal((await browser.get(link.pathname + link.search)).status, 404, "the link works once");
});

test("the sessions: device, address and last use, and signing one out", async () => {
  const sam = await server.user("sam");
  const laptop = await signedIn("sam@example.test", { "user-agent": FIREFOX, "x-forwarded-for": "198.51.100.7" });
  const browser = await signedIn("sam@example.test", { "user-agent": CHROME, "x-forwarded-for": "203.0.113.9" });
  const page = await browser.get("/settings/sessions");
  assert.equal(page.status, 200);
  assert.match(
    page.text,
    /<td>Chrome on Linux<\/td><td>203\.0\.113\.9<\/td><td>\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/td>\s*<td><strong>This session<\/strong>/,
  );
  assert.match(page.text, /<td>Firefox on Windows<\/td><td>198\.51\.100\.7<\/td>/);
  const action = /action="(\/settings\/sessions\/\d+\/sign_out)"/.exec(page.text)![1];
  const res = await browser.post(action, formFields(page.text, action));
  assert.equal(res.status, 303);
  assert.equal((await laptop.get("/settings/sessions")).status, 303, "the laptop is signed out");
  assert.equal((await browser.get("/settings/sessions")).status, 200, "this browser is not");

  // Another member's session is not theirs to end.
  await server.user("other");
  const stranger = await signedIn("other@example.test");
  const samsSessions = () =>
    server.rt.db.selectFrom("web_sessions").select("id").where("user_id", "=", sam.userId).execute();
  const [samsSession] = await samsSessions();
  const token = formFields((await stranger.get("/settings/password")).text, "/settings/password").authenticity_token;
  const res2 = await stranger.post(`/settings/sessions/${samsSession.id}/sign_out`, { authenticity_token: token });
  assert.equal(res2.status, 303);
  assert.deepEqual(await samsSessions(), [samsSession]);
  assert.equal((await browser.get("/settings/sessions")).status, 200);
});

test("revoking an app: its tokens answer 401 at once, and the app is gone from the list", async () => {
  const ann = await server.user("ann");
  assert.equal((await server.get("/api/v1/accounts/verify_credentials", { token: ann.token })).status, 200);
  const browser = await signedIn("ann@example.test");
  const page = await browser.get("/settings/applications");
  assert.match(page.text, /<td>Rookery tests<\/td>/);
  assert.match(page.text, /<code>read<\/code> <code>write<\/code> <code>follow<\/code> <code>push<\/code>/);
  const action = /action="(\/settings\/applications\/\d+\/revoke)"/.exec(page.text)![1];
  const forged = await browser.post(action, { authenticity_token: "forged" });
  assert.equal(forged.status, 422);
  assert.equal((await server.get("/api/v1/accounts/verify_credentials", { token: ann.token })).status, 200);
  const res = await browser.post(action, formFields(page.text, action));
  assert.equal(res.status, 303);
  // The token was used a moment ago, so its answer was cached: revoking empties the cache.
  assert.equal((await server.get("/api/v1/accounts/verify_credentials", { token: ann.token })).status, 401);
  assert.match((await browser.get("/settings/applications")).text, /No app can use your account\./);
  // Other members keep their tokens of the same app.
  const bob = await server.user("bob");
  assert.equal((await server.get("/api/v1/accounts/verify_credentials", { token: bob.token })).status, 200);
  const again = await browser.post(action, formFields(page.text, action));
  assert.equal(again.status, 404);
});

test("a sign-in from a new address or device is told by mail; a known one is not", async () => {
  await server.user("nora");
  await signedIn("nora@example.test", { "user-agent": CHROME, "x-forwarded-for": "192.0.2.1" });
  assert.equal((await mailsTo("nora@example.test")).length, 0, "the first sign-in is news to no one");
  await signedIn("nora@example.test", { "user-agent": CHROME, "x-forwarded-for": "192.0.2.1" });
  assert.equal((await mailsTo("nora@example.test")).length, 0);
  await signedIn("nora@example.test", { "user-agent": FIREFOX, "x-forwarded-for": "192.0.2.1" });
  const [byDevice] = await mailsTo("nora@example.test");
  assert.match(byDevice.raw, /Subject: A new sign-in to your account on/);
  assert.match(byDevice.text, /Address: 192\.0\.2\.1\r?\nDevice: Firefox on Windows/);
  await signedIn("nora@example.test", { "user-agent": CHROME, "x-forwarded-for": "192.0.2.99" });
  const mails = await mailsTo("nora@example.test");
  assert.equal(mails.length, 2);
  assert.match(mails[1].text, /Address: 192\.0\.2\.99\r?\nDevice: Chrome on Linux/);
});

test("deleting one's account: asks the password, then suspends, signs out and purges; the name stays taken", async () => {
  const zoe = await server.user("zoe");
  const browser = await signedIn("zoe@example.test");
  const page = await browser.get("/settings/delete");
  assert.match(page.text, /Your username stays reserved/);
  const wrong = await submitOn(browser, "/settings/delete", "/settings/delete", { current_password: "nope" });
  assert.equal(wrong.status, 422);
  assert.match(wrong.text, /The current password is not right\./);
  assert.equal((await server.get(`/api/v1/accounts/${zoe.accountId}`)).status, 200);
  const forged = await browser.post("/settings/delete", { authenticity_token: "forged", current_password: PASSWORD });
  assert.equal(forged.status, 422);

  const done = await submitOn(browser, "/settings/delete", "/settings/delete", { current_password: PASSWORD });
  assert.equal(done.status, 200);
  assert.match(done.text, /Your account is deleted\./);
  assert.equal((await browser.get("/settings/password")).status, 303, "signed out");
  assert.equal((await server.get("/api/v1/accounts/verify_credentials", { token: zoe.token })).status, 401);
  assert.equal((await server.get(`/api/v1/accounts/${zoe.accountId}`)).status, 410);
  await server.settle();
  const user = await server.rt.db.selectFrom("users").select("id").where("id", "=", zoe.userId).executeTakeFirst();
  assert.equal(user, undefined, "purged");
  assert.equal((await signIn("zoe@example.test")).res.status, 401);

  const stranger = new Browser(server);
  const form = await stranger.get("/auth/sign_up");
  const again = await stranger.post("/auth/sign_up", {
    ...formFields(form.text, "/auth/sign_up"),
    username: "zoe",
    email: "zoe.again@example.test",
    password: PASSWORD,
    password_confirmation: PASSWORD,
    reason: "Me again",
  });
  assert.equal(again.status, 422);
  assert.match(again.text, /Username: is already taken/);
});

test("guessing the current password on the settings pages meets the sign-in limit: 25 an hour", async () => {
  await server.user("tom");
  const browser = await signedIn("tom@example.test");
  const page = await browser.get("/settings/email");
  const fields = formFields(page.text, "/settings/email");
  // The sign-in above cleared the count; 25 wrong guesses are answered as such.
  for (let i = 0; i < 25; i++) {
    const res = await browser.post("/settings/email", {
      ...fields,
      email: "tom2@example.test",
      current_password: `guess ${i}`,
    });
    assert.equal(res.status, 422);
  }
  const limited = await browser.post("/settings/email", {
    ...fields,
    email: "tom2@example.test",
    current_password: PASSWORD,
  });
  assert.equal(limited.status, 429);
  assert.match(limited.text, /Too many attempts/);
  assert.ok(Number(limited.headers.get("retry-after")) > 0);
  await server.settle();
  assert.equal(
    mailbox.mails.some((m) => m.to.includes("tom2@example.test")),
    false,
  );
});
