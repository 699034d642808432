// Signing up through an app, in each registration mode, and confirming the email address.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { modifyUser } from "../src/services/moderation/admin_accounts.ts";
import { startMailbox } from "./mailbox.ts";
import { startServer, type TestServer } from "./rig.ts";

type Mailbox = Awaited<ReturnType<typeof startMailbox>>;

interface App {
  clientId: string;
  clientSecret: string;
  /** A client-credentials token for the app. */
  token: string;
}

/** Registers an app the way a client does, and gets an app token with `scope`. */
async function registerApp(
  server: TestServer,
  o: { scopes?: string; scope?: string; redirectUri?: string } = {},
): Promise<App> {
  const app = await server.post("/api/v1/apps", {
    json: {
      client_name: "Signup",
      redirect_uris: o.redirectUri ?? "urn:ietf:wg:oauth:2.0:oob",
      scopes: o.scopes ?? "read write",
    },
  });
  assert.equal(app.status, 200);
  const token = await server.post("/oauth/token", {
    form: {
      grant_type: "client_credentials",
      client_id: app.body.client_id,
      client_secret: app.body.client_secret,
      scope: o.scope ?? o.scopes ?? "read write",
    },
  });
  assert.equal(token.status, 200);
  return { clientId: app.body.client_id, clientSecret: app.body.client_secret, token: token.body.access_token };
}

const valid = (name: string) => ({
  username: name,
  email: `${name}@mail.test`,
  password: "long enough password",
  agreement: "true",
  locale: "en",
});

/** The confirmation link of the latest mail to `address`, as a path with its query. */
async function confirmationLink(mailbox: Mailbox, address: string): Promise<URL> {
  const mail = await mailbox.mailTo(address);
  return new URL(/(http:\/\/\S+\/auth\/confirmation\?\S+)/.exec(mail.text)![1]);
}

let mailbox: Mailbox;
let open: TestServer;
let app: App;

before(async () => {
  mailbox = await startMailbox();
  open = await startServer({
    env: {
      REGISTRATIONS_MODE: "open",
      SMTP_URL: mailbox.url,
      SMTP_FROM: "rookery@mail.test",
      EMAIL_DOMAIN_DENYLIST: "spam.test|junk.test",
    },
  });
  app = await registerApp(open);
});
after(async () => {
  await open.close();
  await mailbox.close();
});

test("open sign-up returns a token that works once the mailed link is followed", async () => {
  const moderator = await open.user("watcher", { role: "moderator" });
  const bystander = await open.user("bystander");
  const res = await open.post("/api/v1/accounts", { token: app.token, form: valid("newbie") });
  assert.equal(res.status, 200);
  assert.deepEqual(Object.keys(res.body).sort(), ["access_token", "created_at", "scope", "token_type"]);
  assert.equal(res.body.token_type, "Bearer");
  assert.equal(res.body.scope, "read write");
  assert.ok(Math.abs(res.body.created_at - Date.now() / 1000) < 60);
  const userToken = res.body.access_token;

  const before = await open.get("/api/v1/accounts/verify_credentials", { token: userToken });
  assert.equal(before.status, 403);
  assert.deepEqual(before.body, { error: "Your login is missing a confirmed e-mail address" });
  assert.equal((await open.get("/api/v1/emails/check_confirmation", { token: userToken })).body, false);
  // Apps may look at the account they signed up before it can be used.
  const early = await open.get("/api/v1/accounts/verify_credentials", {
    token: userToken,
    query: { allow_nonfunctional: "true" },
  });
  assert.equal(early.status, 200);
  assert.equal(early.body.username, "newbie");
  // Nobody else sees it yet.
  assert.equal((await open.get(`/api/v1/accounts/${early.body.id}`)).status, 404);
  assert.equal((await open.get("/api/v1/accounts/lookup", { query: { acct: "newbie" } })).status, 404);

  const mail = await mailbox.mailTo("newbie@mail.test");
  assert.match(mail.raw, /Subject: Confirm your email address/);
  const link = await confirmationLink(mailbox, "newbie@mail.test");
  assert.equal(link.searchParams.get("redirect_to_app"), "true");
  const page = await open.get(link.pathname + link.search);
  assert.equal(page.status, 200, "an oob app has nowhere to go back to: the page says it is done");
  assert.match(page.text, /Email address confirmed/);
  assert.match(page.text, /You can now sign in/);
  assert.equal((await open.get(link.pathname + link.search)).status, 404, "links work once");

  const me = await open.get("/api/v1/accounts/verify_credentials", { token: userToken });
  assert.equal(me.status, 200);
  assert.equal(me.body.username, "newbie");
  assert.equal(me.body.acct, "newbie");
  assert.equal((await open.get("/api/v1/emails/check_confirmation", { token: userToken })).body, true);
  assert.equal((await open.get(`/api/v1/accounts/${me.body.id}`)).status, 200);
  // Staff hear of the new account once it is confirmed; other users don't.
  const staffNews = await open.get("/api/v1/notifications", { token: moderator.token });
  assert.deepEqual(
    staffNews.body.map((n: { type: string; account: { id: string } }) => [n.type, n.account.id]),
    [["admin.sign_up", me.body.id]],
  );
  assert.deepEqual((await open.get("/api/v1/notifications", { token: bystander.token })).body, []);
  const row = await open.rt.db
    .selectFrom("users")
    .select(["locale", "sign_up_ip", "confirmation_token_hash"])
    .where("email", "=", "newbie@mail.test")
    .executeTakeFirstOrThrow();
  assert.deepEqual(row, { locale: "en", sign_up_ip: "127.0.0.1", confirmation_token_hash: null });
});

test("the user token carries the scopes the app registered, as Mastodon gives them", async () => {
  const wide = await registerApp(open, { scopes: "read write follow push", scope: "write:accounts" });
  const res = await open.post("/api/v1/accounts", { token: wide.token, json: { ...valid("scoped"), agreement: true } });
  assert.equal(res.status, 200);
  assert.equal(res.body.scope, "read write follow push");
});

test("after confirming, an app with a redirect URI gets the browser back", async () => {
  const returning = await registerApp(open, { redirectUri: "com.example.app:/signed-up" });
  const res = await open.post("/api/v1/accounts", { token: returning.token, form: valid("homeward") });
  assert.equal(res.status, 200);
  const link = await confirmationLink(mailbox, "homeward@mail.test");
  const page = await open.get(link.pathname + link.search);
  assert.equal(page.status, 302);
  assert.equal(page.headers.get("location"), "com.example.app:/signed-up");
});

test("validation failures carry Mastodon's details codes and wording", async () => {
  assert.equal((await open.post("/api/v1/accounts", { token: app.token, form: valid("Taken") })).status, 200);
  const res = await open.post("/api/v1/accounts", {
    token: app.token,
    json: { username: "TAKEN", email: " TAKEN@Mail.test ", password: "short", agreement: false },
  });
  assert.equal(res.status, 422);
  assert.deepEqual(res.body, {
    error:
      "Validation failed: E-mail address has already been taken, Password is too short (minimum is 8 characters), Username has already been taken, Service agreement must be accepted",
    details: {
      email: [{ error: "ERR_TAKEN", description: "has already been taken" }],
      password: [{ error: "ERR_TOO_SHORT", description: "is too short (minimum is 8 characters)" }],
      username: [{ error: "ERR_TAKEN", description: "has already been taken" }],
      agreement: [{ error: "ERR_ACCEPTED", description: "must be accepted" }],
    },
  });

  const cases: [Record<string, string>, string, { error: string; description: string }[]][] = [
    [{ username: "admin" }, "username", [{ error: "ERR_RESERVED", description: "is reserved" }]],
    [{ username: "4DM1N" }, "username", [{ error: "ERR_RESERVED", description: "is reserved" }]],
    [{ username: "rookery_fan" }, "username", [{ error: "ERR_RESERVED", description: "is reserved" }]],
    [
      { username: "no spaces" },
      "username",
      [{ error: "ERR_INVALID", description: "must contain only letters, numbers and underscores" }],
    ],
    [
      { username: "x".repeat(31) },
      "username",
      [{ error: "ERR_TOO_LONG", description: "is too long (maximum is 30 characters)" }],
    ],
    [{ email: "nope" }, "email", [{ error: "ERR_INVALID", description: "is invalid" }]],
    [{ email: "a,b@mail.test" }, "email", [{ error: "ERR_INVALID", description: "is invalid" }]],
    [{ email: "x@spam.test" }, "email", [{ error: "ERR_BLOCKED", description: "uses a disallowed e-mail provider" }]],
    [
      { email: "x@eu.junk.test" },
      "email",
      [{ error: "ERR_BLOCKED", description: "uses a disallowed e-mail provider" }],
    ],
    [
      { password: "p".repeat(73) },
      "password",
      [{ error: "ERR_TOO_LONG", description: "is too long (maximum is 72 characters)" }],
    ],
    [{ agreement: "yes please" }, "agreement", [{ error: "ERR_ACCEPTED", description: "must be accepted" }]],
    [{ locale: "not a locale" }, "locale", [{ error: "ERR_INCLUSION", description: "is not included in the list" }]],
  ];
  for (const [change, attribute, errors] of cases) {
    const r = await open.post("/api/v1/accounts", { token: app.token, form: { ...valid("fresh"), ...change } });
    assert.equal(r.status, 422, JSON.stringify(change));
    assert.deepEqual(Object.keys(r.body.details), [attribute], JSON.stringify(change));
    assert.deepEqual(r.body.details[attribute], errors, JSON.stringify(change));
  }
  const blank = await open.post("/api/v1/accounts", { token: app.token, form: {} });
  assert.equal(
    blank.body.error,
    "Validation failed: E-mail address can't be blank, Password can't be blank, Username can't be blank, Service agreement must be accepted",
  );
  const one = await open.post("/api/v1/accounts", { token: app.token, form: { ...valid("numeric"), agreement: "1" } });
  assert.equal(one.status, 200, '"1" accepts the terms');
  const count = await open.rt.db
    .selectFrom("users")
    .select((eb) => eb.fn.countAll().as("n"))
    .where("email", "in", ["fresh@mail.test", "x@spam.test"])
    .executeTakeFirstOrThrow();
  assert.equal(Number(count.n), 0, "no refused sign-up left a row behind");
});

test("sign-up needs an app token with write:accounts, not a user's", async () => {
  const user = await open.user("someone");
  const res = await open.post("/api/v1/accounts", { token: user.token, form: valid("viauser") });
  assert.equal(res.status, 403);
  assert.deepEqual(res.body, { error: "This method requires an client credentials authentication" });
  assert.equal((await open.post("/api/v1/accounts", { form: valid("notoken") })).status, 401);
  const reader = await registerApp(open, { scopes: "read" });
  const refused = await open.post("/api/v1/accounts", { token: reader.token, form: valid("reader") });
  assert.equal(refused.status, 403);
  assert.deepEqual(refused.body, { error: "This action is outside the authorized scopes" });
});

test("sign-ups are throttled per address: 5 in 30 minutes", async () => {
  const from = (ip: string) => ({ "x-forwarded-for": ip });
  for (let i = 0; i < 5; i++) {
    const r = await open.post("/api/v1/accounts", {
      token: app.token,
      form: valid(`burst${i}`),
      headers: from("203.0.113.7"),
    });
    assert.equal(r.status, 200);
  }
  const sixth = await open.post("/api/v1/accounts", {
    token: app.token,
    form: valid("burst5"),
    headers: from("203.0.113.7"),
  });
  assert.equal(sixth.status, 429);
  assert.deepEqual(sixth.body, { error: "Too many requests" });
  assert.equal(sixth.headers.get("x-ratelimit-limit"), "5");
  assert.equal(sixth.headers.get("x-ratelimit-remaining"), "0");
  const reset = Date.parse(sixth.headers.get("x-ratelimit-reset")!);
  assert.ok(reset > Date.now() + 29 * 60_000 && reset <= Date.now() + 30 * 60_000);
  const elsewhere = await open.post("/api/v1/accounts", {
    token: app.token,
    form: valid("burst6"),
    headers: from("203.0.113.8"),
  });
  assert.equal(elsewhere.status, 200);
});

test("resending the confirmation: only for the signing-up app, only while unconfirmed", async () => {
  const res = await open.post("/api/v1/accounts", { token: app.token, form: valid("typo") });
  const userToken = res.body.access_token;

  const appOnly = await open.post("/api/v1/emails/confirmations", { token: app.token });
  assert.equal(appOnly.status, 403);
  assert.deepEqual(appOnly.body, {
    error: "This method is only available to the application the user originally signed-up with",
  });
  const other = await open.user("elsewhere");
  assert.equal((await open.post("/api/v1/emails/confirmations", { token: other.token })).status, 403);

  const taken = await open.post("/api/v1/emails/confirmations", {
    token: userToken,
    form: { email: "newbie@mail.test" },
  });
  assert.equal(taken.status, 422);
  assert.deepEqual(taken.body.details, { email: [{ error: "ERR_TAKEN", description: "has already been taken" }] });

  const resend = await open.post("/api/v1/emails/confirmations", {
    token: userToken,
    json: { email: "Fixed@mail.test" },
  });
  assert.equal(resend.status, 200);
  assert.deepEqual(resend.body, {});
  const link = await confirmationLink(mailbox, "fixed@mail.test");
  assert.equal((await open.get(link.pathname + link.search)).status, 200);
  const me = await open.get("/api/v1/accounts/verify_credentials", { token: userToken });
  assert.equal(me.body.username, "typo");

  const done = await open.post("/api/v1/emails/confirmations", { token: userToken });
  assert.equal(done.status, 403);
  assert.deepEqual(done.body, { error: "This method is only available while the e-mail is awaiting confirmation" });
});

test("approval mode: a reason is required, kept for moderators, and the account waits", async () => {
  const server = await startServer({
    env: { REGISTRATIONS_MODE: "approved", SMTP_URL: mailbox.url, SMTP_FROM: "rookery@mail.test" },
  });
  try {
    const t = await registerApp(server);
    const noReason = await server.post("/api/v1/accounts", { token: t.token, form: valid("waiting") });
    assert.equal(noReason.status, 422);
    assert.deepEqual(noReason.body, {
      error: "Validation failed: Reason can't be blank",
      details: { reason: [{ error: "ERR_BLANK", description: "can't be blank" }] },
    });
    const rambling = await server.post("/api/v1/accounts", {
      token: t.token,
      form: { ...valid("waiting"), reason: "r".repeat(421) },
    });
    assert.deepEqual(rambling.body.details.reason, [
      { error: "ERR_TOO_LONG", description: "is too long (maximum is 420 characters)" },
    ]);
    const res = await server.post("/api/v1/accounts", {
      token: t.token,
      form: { ...valid("waiting"), reason: "I live here" },
    });
    assert.equal(res.status, 200);
    const row = await server.rt.db
      .selectFrom("users")
      .select(["approved", "sign_up_reason"])
      .where("email", "=", "waiting@mail.test")
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { approved: false, sign_up_reason: "I live here" });

    const link = await confirmationLink(mailbox, "waiting@mail.test");
    const page = await server.get(link.pathname + link.search);
    assert.match(page.text, /A moderator still has to approve your account/);
    const token = res.body.access_token;
    const pending = await server.get("/api/v1/accounts/verify_credentials", { token });
    assert.equal(pending.status, 403);
    assert.deepEqual(pending.body, { error: "Your login is currently pending approval" });

    await modifyUser(server.rt, "waiting", { approve: true });
    assert.equal((await server.get("/api/v1/accounts/verify_credentials", { token })).status, 200);
  } finally {
    await server.close();
  }
});

test("closed registrations and the minimum age", async () => {
  const closed = await startServer({ env: { REGISTRATIONS_MODE: "none" } });
  try {
    const res = await closed.post("/api/v1/accounts", { token: (await registerApp(closed)).token, form: valid("x") });
    assert.equal(res.status, 403);
    assert.deepEqual(res.body, { error: "This action is not allowed" });
  } finally {
    await closed.close();
  }
  const aged = await startServer({ env: { REGISTRATIONS_MODE: "open", REGISTRATIONS_MIN_AGE: "16" } });
  try {
    const t = (await registerApp(aged)).token;
    const young = new Date(Date.now() - 10 * 365 * 86400_000).toISOString().slice(0, 10);
    const tooYoung = await aged.post("/api/v1/accounts", { token: t, form: { ...valid("kid"), date_of_birth: young } });
    assert.deepEqual(tooYoung.body.details, {
      date_of_birth: [{ error: "ERR_BELOW_LIMIT", description: "is below the age limit" }],
    });
    assert.equal(tooYoung.body.error, "Validation failed: Date of birth is below the age limit");
    for (const date_of_birth of [undefined, "yesterday", "2001-02-30"]) {
      const r = await aged.post("/api/v1/accounts", {
        token: t,
        form: { ...valid("kid"), ...(date_of_birth ? { date_of_birth } : {}) },
      });
      assert.deepEqual(r.body.details, { date_of_birth: [{ error: "ERR_BLANK", description: "can't be blank" }] });
    }
    const ok = await aged.post("/api/v1/accounts", {
      token: t,
      form: { ...valid("grown"), date_of_birth: "1990-04-01" },
    });
    assert.equal(ok.status, 200);
    const row = await aged.rt.db
      .selectFrom("users")
      .select("date_of_birth")
      .where("email", "=", "grown@mail.test")
      .executeTakeFirstOrThrow();
    assert.equal(row.date_of_birth, "1990-04-01");
  } finally {
    await aged.close();
  }
});
