// The sign-up page (/auth/sign_up): the same rules as POST /api/v1/accounts, CSRF, the trap field
// for bots, the confirmation mail, and what each registrations mode shows.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Browser, formFields, PASSWORD, pageLang } from "./browser.ts";
import { startMailbox } from "./mailbox.ts";
import { startServer, type TestServer } from "./rig.ts";

let open: TestServer;
let approval: TestServer;
let mailbox: Awaited<ReturnType<typeof startMailbox>>;

before(async () => {
  mailbox = await startMailbox();
  const mail = { SMTP_URL: mailbox.url, SMTP_FROM: "rookery@mail.test" };
  open = await startServer({ env: { ...mail, REGISTRATIONS_MODE: "open" } });
  approval = await startServer({
    env: { ...mail, REGISTRATIONS_MODE: "approved", REGISTRATIONS_MIN_AGE: "16", SITE_TITLE: "Approval" },
  });
});
after(async () => {
  await open.close();
  await approval.close();
  await mailbox.close();
});

async function signUpForm(browser: Browser, lang = "en") {
  const page = await browser.get(`/auth/sign_up?lang=${lang}`);
  assert.equal(page.status, 200);
  return { text: page.text, fields: formFields(page.text, "/auth/sign_up") };
}

const userCount = async (server: TestServer, email: string) =>
  (await server.rt.db.selectFrom("users").select("id").where("email", "=", email).execute()).length;

test("the sign-in page and /about lead to the sign-up page", async () => {
  const signIn = await new Browser(open).get("/auth/sign_in");
  assert.match(signIn.text, /<a href="\/auth\/sign_up\?lang=en">Create an account<\/a>/);
  assert.match(signIn.text, /<a href="\/auth\/password\/new\?lang=en">Forgot your password\?<\/a>/);
  const about = await open.get("/about");
  assert.match(about.text, /<a href="\/auth\/sign_up">Sign up<\/a>/);
});

test("signing up: the form, the confirmation mail, and signing in once confirmed", async () => {
  const browser = new Browser(open);
  const { text, fields } = await signUpForm(browser);
  assert.deepEqual(Object.keys(fields).sort(), [
    "agreement",
    "authenticity_token",
    "email",
    "lang",
    "password",
    "password_confirmation",
    "username",
    "website",
  ]);
  assert.doesNotMatch(
    text,
    /name="reason"|name="date_of_birth"/,
    "no reason or age in open mode without a minimum age",
  );
  const res = await browser.post("/auth/sign_up", {
    ...fields,
    username: "newcomer",
    email: "Newcomer@Example.test",
    password: PASSWORD,
    password_confirmation: PASSWORD,
    agreement: "1",
  });
  assert.equal(res.status, 200, res.text);
  assert.match(res.text, /We sent a confirmation link to newcomer@example\.test\. Follow it/);
  const user = await open.rt.db
    .selectFrom("users as u")
    .innerJoin("accounts as a", "a.id", "u.account_id")
    .select(["a.username", "u.confirmed_at", "u.approved", "u.locale", "u.created_by_application_id"])
    .where("u.email", "=", "newcomer@example.test")
    .executeTakeFirstOrThrow();
  assert.equal(user.username, "newcomer");
  assert.equal(user.confirmed_at, null);
  assert.equal(user.approved, true);
  assert.equal(user.locale, "en");
  assert.equal(user.created_by_application_id, null);

  // Not confirmed yet: the password signs in, but apps can't be authorized.
  const mail = await mailbox.mailTo("newcomer@example.test");
  const link = /(http:\/\/[^\s]+\/auth\/confirmation\?confirmation_token=[\w-]+)/.exec(mail.text)?.[1];
  assert.ok(link, mail.text);
  assert.doesNotMatch(link, /redirect_to_app/, "a sign-up on the web goes back to no app");
  const confirmed = await browser.get(new URL(link).pathname + new URL(link).search);
  assert.equal(confirmed.status, 200);
  assert.match(confirmed.text, /Your email address is confirmed/);

  const signIn = await browser.get("/auth/sign_in");
  const signedIn = await browser.post("/auth/sign_in", {
    ...formFields(signIn.text, "/auth/sign_in"),
    email: "newcomer@example.test",
    password: PASSWORD,
  });
  assert.equal(signedIn.status, 303);
});

test("a sign-up in German: the confirmation mail and the confirmation page speak German", async () => {
  const browser = new Browser(approval, { "accept-language": "de-DE,de;q=0.9,en;q=0.5" });
  const { fields } = await signUpForm(browser, "de");
  const res = await browser.post("/auth/sign_up", {
    ...fields,
    username: "neuling",
    email: "neuling@example.test",
    password: PASSWORD,
    password_confirmation: PASSWORD,
    agreement: "1",
    reason: "Ich stricke",
    date_of_birth: "1990-05-01",
  });
  assert.equal(res.status, 200, res.text);
  const mail = await mailbox.mailTo("neuling@example.test");
  assert.equal(mail.subject, "Bestätige deine E-Mail-Adresse für Approval");
  assert.match(mail.text, /Willkommen auf Approval!\r?\n\r?\nUm diese E-Mail-Adresse zu bestätigen, öffne:/);
  const link = new URL(/(http:\/\/\S+\/auth\/confirmation\?confirmation_token=[\w-]+)/.exec(mail.text)![1]);
  const confirmed = await browser.get(link.pathname + link.search);
  assert.equal(confirmed.status, 200);
  assert.equal(pageLang(confirmed.text), "de");
  assert.match(confirmed.text, /<h1>E-Mail-Adresse bestätigt<\/h1>/);
  assert.match(confirmed.text, /muss dein Konto noch freigeben/);
  const again = await browser.get(link.pathname + link.search);
  assert.equal(again.status, 404);
  assert.match(again.text, /Dieser Bestätigungslink ist ungültig oder wurde schon verwendet\./);
  const english = await new Browser(approval).get(link.pathname + link.search);
  assert.match(english.text, /This confirmation link is invalid or was already used\./);
});

test("the form's problems are shown beside its fields, in the page's language, and nothing is made", async () => {
  await open.user("taken");
  const browser = new Browser(open);
  const { fields } = await signUpForm(browser, "de");
  const res = await browser.post("/auth/sign_up", {
    ...fields,
    username: "Taken",
    email: "not-an-address",
    password: "short",
    password_confirmation: "short",
    agreement: "",
  });
  assert.equal(res.status, 422);
  assert.match(res.text, /<html lang="de">/);
  assert.match(res.text, /<p class="error" id="username-error">Benutzername: ist bereits vergeben<\/p>/);
  assert.match(res.text, /<p class="error" id="email-error">E-Mail-Adresse: ist ungültig<\/p>/);
  assert.match(res.text, /<p class="error" id="password-error">Passwort: ist zu kurz \(mindestens 8 Zeichen\)<\/p>/);
  assert.match(res.text, /muss akzeptiert werden/);
  assert.match(res.text, /value="Taken"/, "what was typed stays");
  assert.equal(await userCount(open, "not-an-address"), 0);

  const mismatch = await browser.post("/auth/sign_up", {
    ...fields,
    username: "mismatch",
    email: "mismatch@example.test",
    password: PASSWORD,
    password_confirmation: `${PASSWORD}!`,
    agreement: "1",
  });
  assert.equal(mismatch.status, 422);
  assert.match(mismatch.text, /stimmt nicht mit dem Passwort überein/);
  assert.equal(await userCount(open, "mismatch@example.test"), 0);
});

test("a sign-up without its CSRF token, or with the trap field filled, makes no account", async () => {
  const browser = new Browser(open);
  const { fields } = await signUpForm(browser);
  const values = {
    username: "robot",
    email: "robot@example.test",
    password: PASSWORD,
    password_confirmation: PASSWORD,
    agreement: "1",
  };
  const forged = await browser.post("/auth/sign_up", { ...fields, ...values, authenticity_token: "forged" });
  assert.equal(forged.status, 422);
  assert.match(forged.text, /This form has expired/);
  const stranger = await new Browser(open).post("/auth/sign_up", { ...fields, ...values });
  assert.equal(stranger.status, 422, "another browser's token is refused");
  const trapped = await browser.post("/auth/sign_up", { ...fields, ...values, website: "https://spam.example" });
  assert.equal(trapped.status, 422);
  assert.match(trapped.text, /This sign-up was not accepted/);
  assert.equal(await userCount(open, "robot@example.test"), 0);
  assert.equal(
    mailbox.mails.some((m) => m.to.includes("robot@example.test")),
    false,
  );
});

test("when sign-ups need approval: the reason and the date of birth, checked as the API checks them", async () => {
  const browser = new Browser(approval);
  const { text, fields } = await signUpForm(browser);
  assert.match(text, /A moderator reviews every new account/);
  assert.match(text, /<input id="reason" name="reason" type="text" required>/);
  assert.match(text, /<input id="date_of_birth" name="date_of_birth" type="date" required/);
  assert.match(text, /You must be at least 16 years old\./);
  const values = {
    username: "youngster",
    email: "youngster@example.test",
    password: PASSWORD,
    password_confirmation: PASSWORD,
    agreement: "1",
  };
  const young = new Date();
  young.setUTCFullYear(young.getUTCFullYear() - 10);
  const tooYoung = await browser.post("/auth/sign_up", {
    ...fields,
    ...values,
    reason: "",
    date_of_birth: young.toISOString().slice(0, 10),
  });
  assert.equal(tooYoung.status, 422);
  assert.match(tooYoung.text, /Why do you want to join\?: can&#39;t be blank/);
  assert.match(tooYoung.text, /Date of birth: is below the minimum age of this server/);

  const res = await browser.post("/auth/sign_up", {
    ...fields,
    ...values,
    reason: "I knit",
    date_of_birth: "1990-05-01",
  });
  assert.equal(res.status, 200, res.text);
  assert.match(res.text, /a moderator then reviews your account/);
  const user = await approval.rt.db
    .selectFrom("users")
    .select(["approved", "sign_up_reason", "date_of_birth"])
    .where("email", "=", "youngster@example.test")
    .executeTakeFirstOrThrow();
  assert.deepEqual(user, { approved: false, sign_up_reason: "I knit", date_of_birth: "1990-05-01" });
  const mail = await mailbox.mailTo("youngster@example.test");
  assert.match(mail.text, /Confirm your email address for Approval|To confirm this email address/);
});

test("closed registrations say so, and refuse the form", async () => {
  const closed = await startServer({ env: { REGISTRATIONS_MODE: "none" } });
  try {
    const browser = new Browser(closed);
    const page = await browser.get("/auth/sign_up");
    assert.equal(page.status, 403);
    assert.match(page.text, /This server is not accepting new accounts\./);
    assert.doesNotMatch(page.text, /<form/);
    const signIn = await browser.get("/auth/sign_in");
    assert.doesNotMatch(signIn.text, /sign_up/);
    assert.doesNotMatch((await closed.get("/about")).text, /sign_up/);
    const posted = await browser.post("/auth/sign_up", { username: "x", email: "x@example.test" });
    assert.equal(posted.status, 403);
  } finally {
    await closed.close();
  }
});
