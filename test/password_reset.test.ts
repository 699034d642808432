// "Forgot your password?": the mailed single-use link, its expiry, what a reset ends, the same
// answer for every address, and the throttle per address.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { sha256 } from "../src/domain/secrets.ts";
import { Browser, formFields, PASSWORD } from "./browser.ts";
import { startMailbox } from "./mailbox.ts";
import { startServer, type TestServer } from "./rig.ts";

let server: TestServer;
let mailbox: Awaited<ReturnType<typeof startMailbox>>;
const NEW_PASSWORD = "a brand new passphrase";

before(async () => {
  mailbox = await startMailbox();
  server = await startServer({ env: { SMTP_URL: mailbox.url, SMTP_FROM: "rookery@mail.test" } });
});
after(async () => {
  await server.close();
  await mailbox.close();
});

async function askForReset(browser: Browser, email: string, lang = "en") {
  const page = await browser.get(`/auth/password/new?lang=${lang}`);
  return browser.post("/auth/password/new", { ...formFields(page.text, "/auth/password/new"), email });
}

/** The link of the latest reset mail to `email`, as a path. */
async function resetLink(email: string): Promise<string> {
  await server.settle();
  const mail = mailbox.mails.filter((m) => m.to.includes(email) && m.text.includes("reset_password_token")).at(-1);
  assert.ok(mail, `a reset mail to ${email}`);
  const link = new URL(/(http:\/\/\S+\/auth\/password\/edit\?reset_password_token=[\w-]+)/.exec(mail.text)![1]);
  return link.pathname + link.search;
}

async function signIn(browser: Browser, email: string, password: string) {
  const page = await browser.get("/auth/sign_in");
  return browser.post("/auth/sign_in", { ...formFields(page.text, "/auth/sign_in"), email, password });
}

test("a reset: the link works once, sets the password, and signs out every session and app", async () => {
  const alice = await server.user("alice");
  const elsewhere = new Browser(server);
  assert.equal((await signIn(elsewhere, "alice@example.test", PASSWORD)).status, 303);
  assert.equal((await server.get("/api/v1/accounts/verify_credentials", { token: alice.token })).status, 200);

  const browser = new Browser(server);
  const asked = await askForReset(browser, "Alice@Example.test");
  assert.equal(asked.status, 200);
  assert.match(asked.text, /If this address belongs to an account, a link to reset its password is on its way/);
  const mail = await mailbox.mailTo("alice@example.test");
  assert.match(mail.raw, /Subject: Reset your password on/);
  assert.match(mail.text, /within 6 hours/);
  const link = await resetLink("alice@example.test");
  const token = new URL(link, server.url).searchParams.get("reset_password_token")!;
  const row = await server.rt.db
    .selectFrom("users")
    .select("reset_password_token_hash")
    .where("id", "=", alice.userId)
    .executeTakeFirstOrThrow();
  assert.equal(row.reset_password_token_hash, sha256(token), "only the token's hash is stored");

  const form = await browser.get(link);
  assert.equal(form.status, 200);
  const fields = formFields(form.text, "/auth/password");
  assert.equal(fields.reset_password_token, token);
  const short = await browser.post("/auth/password", { ...fields, password: "short", password_confirmation: "short" });
  assert.equal(short.status, 422);
  assert.match(short.text, /is too short/);
  const forged = await browser.post("/auth/password", {
    ...fields,
    authenticity_token: "forged",
    password: NEW_PASSWORD,
    password_confirmation: NEW_PASSWORD,
  });
  assert.equal(forged.status, 422);
  const done = await browser.post("/auth/password", {
    ...fields,
    password: NEW_PASSWORD,
    password_confirmation: NEW_PASSWORD,
  });
  assert.equal(done.status, 200);
  assert.match(done.text, /Your password is changed/);

  // Every session and token ended, at once.
  assert.equal((await server.get("/api/v1/accounts/verify_credentials", { token: alice.token })).status, 401);
  const settings = await elsewhere.get("/settings/password");
  assert.equal(settings.status, 303, "the other browser is signed out");
  assert.equal((await signIn(new Browser(server), "alice@example.test", PASSWORD)).status, 401);
  assert.equal((await signIn(new Browser(server), "alice@example.test", NEW_PASSWORD)).status, 303);

  // Used: the link is dead.
  const again = await browser.get(link);
  assert.equal(again.status, 404);
  assert.match(again.text, /This link is invalid, was already used, or has expired/);
  const replay = await browser.post("/auth/password", {
    ...fields,
    password: PASSWORD,
    password_confirmation: PASSWORD,
  });
  assert.equal(replay.status, 404);
  assert.equal((await signIn(new Browser(server), "alice@example.test", NEW_PASSWORD)).status, 303);
});

test("the mail speaks the account's language, whatever the page's", async () => {
  const bernd = await server.user("bernd");
  await server.rt.db.updateTable("users").set({ locale: "de" }).where("id", "=", bernd.userId).execute();
  assert.equal((await askForReset(new Browser(server), "bernd@example.test", "fr")).status, 200);
  const mail = await mailbox.mailTo("bernd@example.test");
  assert.equal(mail.subject, `Passwort für ${server.rt.config.site.title} zurücksetzen`);
  assert.match(mail.text, /öffne diesen Link innerhalb von 6 Stunden \(er funktioniert einmal\)/);
});

test("a link expires after 6 hours", async () => {
  await server.user("late");
  const browser = new Browser(server);
  await askForReset(browser, "late@example.test");
  const link = await resetLink("late@example.test");
  // As if the mail had been sent 6 hours and a minute ago.
  await server.rt.db
    .updateTable("users")
    .set({ reset_password_sent_at: new Date(Date.now() - 6 * 3_600_000 - 60_000) })
    .where("email", "=", "late@example.test")
    .execute();
  assert.equal((await browser.get(link)).status, 404);
  const fields = { ...formFields((await browser.get("/auth/password/new")).text, "/auth/password/new") };
  const res = await browser.post("/auth/password", {
    authenticity_token: fields.authenticity_token,
    reset_password_token: new URL(link, server.url).searchParams.get("reset_password_token")!,
    password: NEW_PASSWORD,
    password_confirmation: NEW_PASSWORD,
  });
  assert.equal(res.status, 404);
  assert.equal((await signIn(new Browser(server), "late@example.test", PASSWORD)).status, 303, "unchanged");
});

test("the page says the same for an address without an account, and sends nothing", async () => {
  const browser = new Browser(server);
  const known = await askForReset(browser, "alice@example.test", "fr");
  const unknown = await askForReset(browser, "nobody@example.test", "fr");
  assert.equal(unknown.status, known.status);
  const body = (html: string) => html.replace(/<input type="hidden"[^>]*>/g, "");
  assert.equal(body(unknown.text), body(known.text));
  assert.match(unknown.text, /Si cette adresse appartient à un compte/);
  await server.settle();
  assert.equal(
    mailbox.mails.some((m) => m.to.includes("nobody@example.test")),
    false,
  );
});

test("requests are throttled per address: 5 in 30 minutes", async () => {
  await server.user("spammed");
  for (let i = 0; i < 5; i++) {
    assert.equal((await askForReset(new Browser(server), "spammed@example.test")).status, 200);
  }
  const sixth = await askForReset(new Browser(server), "spammed@example.test");
  assert.equal(sixth.status, 429);
  assert.match(sixth.text, /Too many attempts/);
  assert.ok(Number(sixth.headers.get("retry-after")) > 0);
  // An unknown address is counted the same, so the limit tells nothing either.
  for (let i = 0; i < 5; i++) await askForReset(new Browser(server), "ghost@example.test");
  assert.equal((await askForReset(new Browser(server), "ghost@example.test")).status, 429);
  await server.settle();
  const sent = mailbox.mails.filter((m) => m.to.includes("spammed@example.test")).length;
  assert.equal(sent, 5);
});

test("a reset request without its CSRF token is refused", async () => {
  await server.user("csrf");
  const res = await new Browser(server).post("/auth/password/new", { email: "csrf@example.test" });
  assert.equal(res.status, 422);
  await server.settle();
  assert.equal(
    mailbox.mails.some((m) => m.to.includes("csrf@example.test")),
    false,
  );
});
