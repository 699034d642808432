// Two-factor sign-in (TOTP): setting it up with a QR code and a code from the app, the recovery
// codes, the code asked after the password (wrong codes, replays, the limit of tries), the password
// grant refused, turning it off, and the operator's --disable-2fa and --reset-password.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Secret, TOTP } from "otpauth";
import { modifyUser } from "../src/services/moderation/admin_accounts.ts";
import { Browser, formFields, PASSWORD } from "./browser.ts";
import { startMailbox } from "./mailbox.ts";
import { startServer, type TestServer } from "./rig.ts";

let server: TestServer;
let mailbox: Awaited<ReturnType<typeof startMailbox>>;
let app: { client_id: string; client_secret: string };

before(async () => {
  mailbox = await startMailbox();
  server = await startServer({ env: { SMTP_URL: mailbox.url, SMTP_FROM: "rookery@mail.test" } });
  app = (
    await server.post("/api/v1/apps", {
      json: { client_name: "Password app", redirect_uris: "urn:ietf:wg:oauth:2.0:oob", scopes: "read" },
    })
  ).body;
});
after(async () => {
  await server.close();
  await mailbox.close();
});

/** The code the app shows `steps` periods from now. */
const codeOf = (secret: string, steps = 0) =>
  new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + steps * 30_000 });

/** A code the app does not show now, nor a step either side (a made-up code could be right by chance). */
function wrongCode(secret: string, n = 0): string {
  const near = new Set([-2, -1, 0, 1, 2].map((steps) => codeOf(secret, steps)));
  for (let i = n; ; i++) {
    const code = String(100000 + i);
    if (!near.has(code)) return code;
  }
}

async function signInWithPassword(email: string, browser = new Browser(server)) {
  const page = await browser.get("/auth/sign_in?return_to=%2Fsettings%2Ftwo_factor");
  const res = await browser.post("/auth/sign_in", {
    ...formFields(page.text, "/auth/sign_in"),
    email,
    password: PASSWORD,
  });
  return { browser, res };
}

/** Turns two-factor sign-in on through the pages; returns the secret and the recovery codes. */
async function enable(username: string) {
  const { browser, res } = await signInWithPassword(`${username}@example.test`);
  assert.equal(res.status, 303);
  const status = await browser.get("/settings/two_factor");
  assert.match(status.text, /Two-factor sign-in is off/);
  const setup = await browser.post("/settings/two_factor/setup", formFields(status.text, "/settings/two_factor/setup"));
  assert.equal(setup.status, 200);
  const secret = /<code class="secret" id="otp-secret">([A-Z2-7]+)<\/code>/.exec(setup.text)![1];
  const fields = formFields(setup.text, "/settings/two_factor/confirm");
  const codes = await browser.post("/settings/two_factor/confirm", { ...fields, code: codeOf(secret) });
  assert.equal(codes.status, 200, codes.text);
  const recovery = [...codes.text.matchAll(/<li><code>([0-9a-f]{10})<\/code><\/li>/g)].map((m) => m[1]);
  return { browser, secret, recovery };
}

async function passwordGrant(email: string) {
  return server.post("/oauth/token", {
    form: {
      grant_type: "password",
      client_id: app.client_id,
      client_secret: app.client_secret,
      username: email,
      password: PASSWORD,
      scope: "read",
    },
  });
}

test("setting up: a QR code and the secret, confirmed by a code; ten recovery codes shown once", async () => {
  const carol = await server.user("carol");
  const { browser } = await signInWithPassword("carol@example.test");
  const status = await browser.get("/settings/two_factor");
  const setup = await browser.post("/settings/two_factor/setup", formFields(status.text, "/settings/two_factor/setup"));
  assert.match(setup.text, /<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*viewBox="0 0 \d+ \d+"/);
  const secret = /<code class="secret" id="otp-secret">([A-Z2-7]{32})<\/code>/.exec(setup.text)![1];
  const uri = /<code id="otp-uri">([^<]+)<\/code>/.exec(setup.text)![1].replaceAll("&amp;", "&");
  const parsed = new URL(uri);
  assert.equal(parsed.protocol, "otpauth:");
  assert.equal(parsed.searchParams.get("secret"), secret);
  assert.equal(parsed.host, "totp");
  assert.equal(decodeURIComponent(parsed.pathname), `/${server.url.slice(7)}:carol@example.test`);
  assert.equal(parsed.searchParams.get("digits"), "6");
  assert.equal(parsed.searchParams.get("period"), "30");
  const stored = await server.rt.db
    .selectFrom("users")
    .select(["otp_secret", "otp_enabled"])
    .where("id", "=", carol.userId)
    .executeTakeFirstOrThrow();
  assert.equal(stored.otp_enabled, false, "not on until confirmed");
  assert.ok(stored.otp_secret && !stored.otp_secret.includes(secret), "the secret is stored sealed");

  // Reloading keeps the same secret (the app may have scanned it already).
  const again = await browser.post("/settings/two_factor/setup", formFields(status.text, "/settings/two_factor/setup"));
  assert.match(again.text, new RegExp(`id="otp-secret">${secret}<`));

  const fields = formFields(setup.text, "/settings/two_factor/confirm");
  const wrong = await browser.post("/settings/two_factor/confirm", { ...fields, code: wrongCode(secret) });
  assert.equal(wrong.status, 422);
  assert.match(wrong.text, /This code is not valid\. Check the time on your phone/);
  const forged = await browser.post("/settings/two_factor/confirm", {
    ...fields,
    authenticity_token: "forged",
    code: codeOf(secret),
  });
  assert.equal(forged.status, 422);
  const ok = await browser.post("/settings/two_factor/confirm", { ...fields, code: codeOf(secret) });
  assert.equal(ok.status, 200);
  const recovery = [...ok.text.matchAll(/<li><code>([0-9a-f]{10})<\/code><\/li>/g)].map((m) => m[1]);
  assert.equal(new Set(recovery).size, 10);
  const rows = await server.rt.db
    .selectFrom("otp_recovery_codes")
    .select("code_hash")
    .where("user_id", "=", carol.userId)
    .execute();
  assert.equal(rows.length, 10);
  assert.ok(
    rows.every((r) => !recovery.includes(r.code_hash) && r.code_hash.length === 64),
    "kept hashed",
  );
  const page = await browser.get("/settings/two_factor");
  assert.match(page.text, /Two-factor sign-in is on/);
  assert.match(page.text, /Recovery codes left: 10/);
  assert.doesNotMatch(page.text, new RegExp(recovery[0]), "the codes are not shown again");
  await server.settle();
  const mail = mailbox.mails.find((m) => m.to.includes("carol@example.test"));
  assert.match(mail!.raw, /Subject: Two-factor sign-in is on for/);
});

test("signing in asks for a code after the password; a code works once, a recovery code too", async () => {
  await server.user("dave");
  const { secret, recovery } = await enable("dave");
  const { browser, res } = await signInWithPassword("dave@example.test");
  assert.equal(res.status, 200, "no session yet: the code's form");
  assert.equal(browser.cookies.has("_rookery_session"), false);
  assert.match(res.text, /Enter the code from your authenticator app, or one of your recovery codes\./);
  const fields = formFields(res.text, "/auth/two_factor");
  assert.equal(fields.return_to, "/settings/two_factor");

  const wrong = await browser.post("/auth/two_factor", { ...fields, code: wrongCode(secret) });
  assert.equal(wrong.status, 401);
  assert.match(wrong.text, /This code is not valid\./);
  const forged = await browser.post("/auth/two_factor", {
    ...fields,
    authenticity_token: "x",
    code: codeOf(secret, 1),
  });
  assert.equal(forged.status, 422);
  // Another browser has no pending sign-in, whatever code it has.
  const other = new Browser(server);
  const otherFields = formFields((await other.get("/auth/sign_in")).text, "/auth/sign_in");
  const noPending = await other.post("/auth/two_factor", { ...otherFields, code: codeOf(secret, 1) });
  assert.equal(noPending.status, 401);

  const code = codeOf(secret, 1);
  const ok = await browser.post("/auth/two_factor", { ...fields, code });
  assert.equal(ok.status, 303);
  assert.equal(ok.headers.get("location"), "/settings/two_factor");
  assert.equal((await browser.get("/settings/two_factor")).status, 200);

  // The same code again (as if seen over a shoulder) does not sign in.
  const replay = await signInWithPassword("dave@example.test");
  const replayed = await replay.browser.post("/auth/two_factor", {
    ...formFields(replay.res.text, "/auth/two_factor"),
    code,
  });
  assert.equal(replayed.status, 401);

  // A recovery code signs in once.
  const first = await signInWithPassword("dave@example.test");
  const byRecovery = await first.browser.post("/auth/two_factor", {
    ...formFields(first.res.text, "/auth/two_factor"),
    code: recovery[3],
  });
  assert.equal(byRecovery.status, 303);
  const second = await signInWithPassword("dave@example.test");
  const reused = await second.browser.post("/auth/two_factor", {
    ...formFields(second.res.text, "/auth/two_factor"),
    code: recovery[3],
  });
  assert.equal(reused.status, 401);
  assert.match((await first.browser.get("/settings/two_factor")).text, /Recovery codes left: 9/);
});

test("tries of a second factor are limited per account: 10 in 15 minutes", async () => {
  await server.user("erin");
  const { secret } = await enable("erin");
  const { browser, res } = await signInWithPassword("erin@example.test");
  const fields = formFields(res.text, "/auth/two_factor");
  for (let i = 0; i < 10; i++) {
    assert.equal((await browser.post("/auth/two_factor", { ...fields, code: wrongCode(secret, i * 7) })).status, 401);
  }
  const limited = await browser.post("/auth/two_factor", { ...fields, code: codeOf(secret, 1) });
  assert.equal(limited.status, 429, "even the right code, past the limit");
  assert.match(limited.text, /Too many attempts/);
  assert.ok(Number(limited.headers.get("retry-after")) > 0);
  assert.equal(browser.cookies.has("_rookery_session"), false);
  // From another browser too: the limit is the account's.
  const other = await signInWithPassword("erin@example.test");
  const elsewhere = await other.browser.post("/auth/two_factor", {
    ...formFields(other.res.text, "/auth/two_factor"),
    code: codeOf(secret, 1),
  });
  assert.equal(elsewhere.status, 429);
});

test("the password grant is refused to an account with two-factor sign-in, as on Mastodon", async () => {
  await server.user("fred");
  const before = await passwordGrant("fred@example.test");
  assert.equal(before.status, 200);
  await enable("fred");
  const res = await passwordGrant("fred@example.test");
  assert.equal(res.status, 400);
  assert.equal(res.body.error, "invalid_grant");
});

test("turning it off asks for a code, and mails the member", async () => {
  const gina = await server.user("gina");
  const { browser, secret } = await enable("gina");
  const page = await browser.get("/settings/two_factor");
  const fields = formFields(page.text, "/settings/two_factor/disable");
  const wrong = await browser.post("/settings/two_factor/disable", { ...fields, code: wrongCode(secret) });
  assert.equal(wrong.status, 401);
  assert.match(wrong.text, /Two-factor sign-in is on/);
  const forged = await browser.post("/settings/two_factor/disable", { ...fields, authenticity_token: "x" });
  assert.equal(forged.status, 422);
  const ok = await browser.post("/settings/two_factor/disable", { ...fields, code: codeOf(secret, 1) });
  assert.equal(ok.status, 303);
  assert.match((await browser.get("/settings/two_factor")).text, /Two-factor sign-in is off/);
  const row = await server.rt.db
    .selectFrom("users")
    .select(["otp_enabled", "otp_secret"])
    .where("id", "=", gina.userId)
    .executeTakeFirstOrThrow();
  assert.deepEqual(row, { otp_enabled: false, otp_secret: null });
  assert.equal((await signInWithPassword("gina@example.test")).res.status, 303, "the password alone signs in");
  await server.settle();
  const subjects = mailbox.mails
    .filter((m) => m.to.includes("gina@example.test"))
    .map((m) => /Subject: (.*)/.exec(m.raw)![1]);
  assert.equal(subjects.length, 2);
  assert.match(subjects[1], /^Two-factor sign-in is off for/);
});

test("operators: --disable-2fa turns it off, --reset-password sets a new one and ends every session", async () => {
  const hugo = await server.user("hugo");
  await enable("hugo");
  assert.deepEqual(await modifyUser(server.rt, "hugo", { disableTwoFactor: true }), { password: null });
  assert.equal((await signInWithPassword("hugo@example.test")).res.status, 303);
  assert.equal((await passwordGrant("hugo@example.test")).status, 200);

  const signedIn = (await signInWithPassword("hugo@example.test")).browser;
  const { password } = await modifyUser(server.rt, "hugo", { resetPassword: true });
  assert.ok(password && password.length >= 20);
  assert.equal((await signedIn.get("/settings/two_factor")).status, 303, "signed out");
  assert.equal((await server.get("/api/v1/accounts/verify_credentials", { token: hugo.token })).status, 401);
  assert.equal((await signInWithPassword("hugo@example.test")).res.status, 401);
  const browser = new Browser(server);
  const page = await browser.get("/auth/sign_in");
  const res = await browser.post("/auth/sign_in", {
    ...formFields(page.text, "/auth/sign_in"),
    email: "hugo@example.test",
    password: password!,
  });
  assert.equal(res.status, 303);
});
