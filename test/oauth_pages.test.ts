// The sign-in and consent pages around /oauth/authorize: sessions, CSRF, who may authorize,
// languages, and the throttling of sign-in attempts.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { authorizeThroughPages, Browser, formFields, PASSWORD, pageLang } from "./browser.ts";
import { startServer, type TestServer } from "./rig.ts";

let server: TestServer;
let app: { client_id: string; client_secret: string };
const WEB = "https://app.example/cb";

before(async () => {
  server = await startServer();
  await server.user("alice");
  app = (
    await server.post("/api/v1/apps", {
      json: { client_name: "Elk", redirect_uris: WEB, scopes: "read write push" },
    })
  ).body;
});
after(() => server.close());

function authorizeUrl(extra: Record<string, string> = {}) {
  const q = new URLSearchParams({ response_type: "code", client_id: app.client_id, redirect_uri: WEB, ...extra });
  return `/oauth/authorize?${q}`;
}

async function signIn(browser: Browser, email = "alice@example.test") {
  const page = await browser.get(authorizeUrl({ scope: "write" }));
  const res = await browser.post("/auth/sign_in", {
    ...formFields(page.text, "/auth/sign_in"),
    email,
    password: PASSWORD,
  });
  assert.equal(res.status, 303);
  return res;
}

test("forms need their CSRF token, which is bound to the session", async () => {
  const browser = new Browser(server);
  const page = await browser.get(authorizeUrl());
  const fields = formFields(page.text, "/auth/sign_in");
  assert.equal(fields.authenticity_token.length, 43);
  const forged = await browser.post("/auth/sign_in", {
    ...fields,
    authenticity_token: "forged",
    email: "alice@example.test",
    password: PASSWORD,
  });
  assert.equal(forged.status, 422);
  assert.match(forged.text, /This form has expired/);
  assert.equal(browser.cookies.has("_rookery_session"), false);
  // Another browser's token is no good either.
  const stranger = new Browser(server);
  await stranger.get(authorizeUrl());
  const crossed = await stranger.post("/auth/sign_in", { ...fields, email: "alice@example.test", password: PASSWORD });
  assert.equal(crossed.status, 422);

  const ok = await browser.post("/auth/sign_in", { ...fields, email: "alice@example.test", password: PASSWORD });
  assert.equal(ok.status, 303);
  const consent = await browser.get(ok.headers.get("location")!);
  const consentFields = formFields(consent.text, "/oauth/authorize");
  assert.notEqual(consentFields.authenticity_token, fields.authenticity_token, "a new token with the session");
  const stale = await browser.post("/oauth/authorize", {
    ...consentFields,
    authenticity_token: fields.authenticity_token,
    decision: "approve",
  });
  assert.equal(stale.status, 422);
  assert.equal(stale.headers.get("location"), null);
  const good = await browser.post("/oauth/authorize", { ...consentFields, decision: "approve" });
  assert.equal(good.status, 302);
});

test("the session cookie is signed, and signing out ends the session on the server", async () => {
  const browser = new Browser(server);
  await signIn(browser);
  const cookie = browser.cookies.get("_rookery_session")!;
  const rows = await server.rt.db.selectFrom("web_sessions").select("token_hash").execute();
  assert.ok(
    rows.every((r) => !cookie.includes(r.token_hash)),
    "the server keeps only a hash",
  );

  const tampered = new Browser(server);
  tampered.cookies.set("_rookery_session", `x${cookie}`);
  assert.match((await tampered.get(authorizeUrl())).text, /action="\/auth\/sign_in"/);

  const copy = new Browser(server);
  copy.cookies.set("_rookery_session", cookie);
  assert.match((await copy.get(authorizeUrl())).text, /action="\/oauth\/authorize"/);

  const consent = await browser.get(authorizeUrl());
  const out = await browser.post("/auth/sign_out", formFields(consent.text, "/auth/sign_out"));
  assert.equal(out.status, 200);
  assert.match(out.text, /You have signed out\./);
  assert.equal(browser.cookies.has("_rookery_session"), false);
  // The old cookie, replayed, no longer signs anyone in.
  assert.match((await copy.get(authorizeUrl())).text, /action="\/auth\/sign_in"/);
});

test("force_login asks again and replaces the session; only local paths are returned to", async () => {
  const browser = new Browser(server);
  await signIn(browser);
  const sessions = await server.rt.db.selectFrom("web_sessions").select("id").execute();
  const forced = await browser.get(authorizeUrl({ force_login: "true" }));
  assert.match(forced.text, /action="\/auth\/sign_in"/);
  const fields = formFields(forced.text, "/auth/sign_in");
  assert.doesNotMatch(fields.return_to, /force_login/);
  const again = await browser.post("/auth/sign_in", { ...fields, email: "alice@example.test", password: PASSWORD });
  assert.equal(again.status, 303);
  const afterwards = await server.rt.db.selectFrom("web_sessions").select("id").execute();
  assert.equal(afterwards.length, sessions.length, "the old session ended as the new one began");

  for (const returnTo of ["https://evil.example/", "//evil.example/", "/\\evil.example/"]) {
    const page = await browser.get(`/auth/sign_in?return_to=${encodeURIComponent(returnTo)}`);
    const res = await browser.post("/auth/sign_in", {
      ...formFields(page.text, "/auth/sign_in"),
      return_to: returnTo,
      email: "alice@example.test",
      password: PASSWORD,
    });
    assert.equal(res.headers.get("location"), "/", returnTo);
  }
});

test("users who can't use apps yet can sign in and see why, in Mastodon's words", async () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ["pending", { approved: false }, "Your login is currently pending approval"],
    ["unconfirmed", { confirmed_at: null }, "Your login is missing a confirmed e-mail address"],
    ["disabled", { disabled: true }, "Your login is currently disabled"],
  ];
  for (const [name, change, text] of cases) {
    const user = await server.user(name);
    await server.rt.db.updateTable("users").set(change).where("id", "=", user.userId).execute();
    const browser = new Browser(server);
    const res = await authorizeThroughPages(browser, authorizeUrl(), { email: `${name}@example.test` });
    assert.equal(res.status, 403, name);
    assert.ok(res.text.includes(text), name);
    assert.match(res.text, /action="\/auth\/sign_out"/);
    // Posting the consent form anyway changes nothing.
    const posted = await browser.post("/oauth/authorize", {
      response_type: "code",
      client_id: app.client_id,
      redirect_uri: WEB,
      authenticity_token: formFields(res.text, "/auth/sign_out").authenticity_token,
      decision: "approve",
    });
    assert.equal(posted.status, 403, name);
    assert.equal(posted.headers.get("location"), null);
  }
});

test("pages speak the language the app asks for with lang, else the browser's", async () => {
  const german = new Browser(server);
  const signInPage = await german.get(authorizeUrl({ lang: "de" }));
  assert.equal(pageLang(signInPage.text), "de");
  assert.match(signInPage.text, /<label for="email">E-Mail-Adresse<\/label>/);
  const fields = formFields(signInPage.text, "/auth/sign_in");
  assert.equal(fields.lang, "de");
  const wrong = await german.post("/auth/sign_in", { ...fields, email: "alice@example.test", password: "nope" });
  assert.equal(wrong.status, 401);
  assert.equal(pageLang(wrong.text), "de");
  assert.match(wrong.text, /E-Mail-Adresse oder Passwort ist falsch\./);
  const ok = await german.post("/auth/sign_in", { ...fields, email: "alice@example.test", password: PASSWORD });
  const consent = await german.get(ok.headers.get("location")!);
  assert.equal(pageLang(consent.text), "de");
  assert.match(consent.text, /<h1>Elk autorisieren\?<\/h1>/);
  assert.match(consent.text, /<li>Alle Daten deines Kontos lesen/);

  const french = new Browser(server, { "accept-language": "nl;q=0.9, fr-CH, en;q=0.5" });
  const page = await french.get(authorizeUrl());
  assert.equal(pageLang(page.text), "fr");
  assert.match(page.text, /<h1>Se connecter<\/h1>/);

  const unknown = await new Browser(server).get(authorizeUrl({ lang: "tlh" }));
  assert.equal(pageLang(unknown.text), "en");
  // The server's own error descriptions stay English, and say so.
  const error = await new Browser(server).get(authorizeUrl({ lang: "es", scope: "admin:read" }));
  assert.equal(pageLang(error.text), "es");
  assert.match(error.text, /<h1>Se ha producido un error<\/h1>/);
  assert.match(error.text, /<p class="notice" role="alert" lang="en">The requested scope is invalid/);
});

test("granular scopes are described in plain words", async () => {
  const granular = (
    await server.post("/api/v1/apps", {
      json: {
        client_name: "Granular",
        redirect_uris: WEB,
        scopes: "read:statuses write:media read:search admin:read:reports profile",
      },
    })
  ).body;
  const browser = new Browser(server);
  await signIn(browser);
  const q = new URLSearchParams({
    response_type: "code",
    client_id: granular.client_id,
    redirect_uri: WEB,
    scope: "read:statuses write:media read:search admin:read:reports profile",
  });
  const consent = await browser.get(`/oauth/authorize?${q}`);
  const items = [...consent.text.matchAll(/<li>([^<]+) <span/g)].map((m) => m[1]);
  assert.deepEqual(items, [
    "See your posts",
    "Upload media files",
    "Search on your behalf",
    "See the server&#39;s reports",
    "Read only your profile information",
  ]);
});

test("sign-in attempts are throttled per email and per address, with Mastodon's headers", async () => {
  await server.user("carol");
  const browser = new Browser(server);
  const fields = formFields((await browser.get(authorizeUrl())).text, "/auth/sign_in");
  const statuses: number[] = [];
  for (let i = 0; i < 26; i++) {
    const res = await browser.post("/auth/sign_in", { ...fields, email: "carol@example.test", password: `guess ${i}` });
    statuses.push(res.status);
  }
  assert.deepEqual(statuses, [...Array(25).fill(401), 429]);
  const right = await browser.post("/auth/sign_in", { ...fields, email: "carol@example.test", password: PASSWORD });
  assert.equal(right.status, 429, "even the right password waits out the window");
  assert.match(right.text, /Too many attempts/);
  assert.equal(right.headers.get("x-ratelimit-limit"), "25");
  assert.equal(right.headers.get("x-ratelimit-remaining"), "0");
  assert.ok(Number(right.headers.get("retry-after")) > 3000);
  // The password grant counts against the same email.
  const grant = await server.post("/oauth/token", {
    form: {
      grant_type: "password",
      username: "carol@example.test",
      password: PASSWORD,
      client_id: app.client_id,
      client_secret: app.client_secret,
    },
  });
  assert.equal(grant.status, 429);
  assert.deepEqual(grant.body, { error: "Too many requests" });
  assert.ok(!Number.isNaN(Date.parse(grant.headers.get("x-ratelimit-reset")!)));

  // Behind a reverse proxy on this machine, each client address has its own allowance; an IPv6
  // client is counted by its /64.
  const proxied = (address: string) => new Browser(server, { "x-forwarded-for": address });
  const fromOne = proxied("2001:db8:1:2::10");
  const form = formFields((await fromOne.get(authorizeUrl())).text, "/auth/sign_in");
  for (let i = 0; i < 25; i++) {
    const res = await fromOne.post("/auth/sign_in", { ...form, email: `nobody${i}@example.test`, password: "x" });
    assert.equal(res.status, 401);
  }
  const sameNetwork = proxied("2001:db8:1:2:ffff::1");
  const sameForm = formFields((await sameNetwork.get(authorizeUrl())).text, "/auth/sign_in");
  const blocked = await sameNetwork.post("/auth/sign_in", {
    ...sameForm,
    email: "alice@example.test",
    password: PASSWORD,
  });
  assert.equal(blocked.status, 429);
  const elsewhere = proxied("198.51.100.7");
  const otherForm = formFields((await elsewhere.get(authorizeUrl())).text, "/auth/sign_in");
  const fine = await elsewhere.post("/auth/sign_in", { ...otherForm, email: "alice@example.test", password: PASSWORD });
  assert.equal(fine.status, 303);
});

test("on an https origin the cookies are Secure", async () => {
  const https = await startServer({ env: { LOCAL_HTTPS: "true" } });
  try {
    await https.user("dora");
    const client = (await https.post("/api/v1/apps", { json: { client_name: "x", redirect_uris: WEB } })).body;
    const browser = new Browser(https);
    const page = await browser.get(
      `/oauth/authorize?response_type=code&client_id=${client.client_id}&redirect_uri=${WEB}`,
    );
    assert.match(page.headers.getSetCookie().join("\n"), /_rookery_browser=[^;]+;.*Secure/);
    const res = await browser.post("/auth/sign_in", {
      ...formFields(page.text, "/auth/sign_in"),
      email: "dora@example.test",
      password: PASSWORD,
    });
    assert.equal(res.status, 303);
    const session = res.headers.getSetCookie().find((c) => c.startsWith("_rookery_session="))!;
    assert.match(session, /; Secure/);
    assert.match(session, /; HttpOnly/);
  } finally {
    await https.close();
  }
});
