// The OAuth 2.0 flows as apps drive them: the authorization code through the real HTML forms, the
// token endpoint with Doorkeeper's answers, revocation, userinfo and the metadata document.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, test } from "node:test";
import { authorizeThroughPages, Browser, formFields, PASSWORD } from "./browser.ts";
import { assertEntity } from "./conformance.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let alice: TestUser;
let app: { client_id: string; client_secret: string };

const IVORY = "com.tapbots.Ivory.10217:/request_token";
const WEB = "https://app.example/cb";
const OOB = "urn:ietf:wg:oauth:2.0:oob";
const INVALID_GRANT =
  "The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.";
const INVALID_CLIENT =
  "Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.";

before(async () => {
  server = await startServer();
  alice = await server.user("alice");
  app = (
    await server.post("/api/v1/apps", {
      json: {
        client_name: "Ivory",
        redirect_uris: [IVORY, OOB, WEB, "http://127.0.0.1/callback"],
        scopes: "read write follow push profile",
      },
    })
  ).body;
});
after(() => server.close());

function authorizeUrl(extra: Record<string, string>) {
  const q = new URLSearchParams({ response_type: "code", client_id: app.client_id, ...extra });
  return `/oauth/authorize?${q}`;
}

function codeOf(res: { headers: Headers }): string {
  return new URL(res.headers.get("location")!).searchParams.get("code")!;
}

function exchange(form: Record<string, string>, headers: Record<string, string> = {}) {
  return server.post("/oauth/token", { form: { grant_type: "authorization_code", ...form }, headers });
}

function passwordToken(scope: string, username = "alice@example.test") {
  return server.post("/oauth/token", {
    form: {
      grant_type: "password",
      username,
      password: PASSWORD,
      client_id: app.client_id,
      client_secret: app.client_secret,
      scope,
    },
  });
}

test("authorization code with PKCE S256 through the sign-in and consent pages, to a custom-scheme URI", async (t) => {
  const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const browser = new Browser(server);
  const url = authorizeUrl({
    redirect_uri: IVORY,
    scope: "read write",
    state: "xyz 1",
    code_challenge: challenge,
    code_challenge_method: "S256",
  });

  const signIn = await browser.get(url);
  assert.equal(signIn.status, 200);
  assert.equal(signIn.headers.get("cache-control"), "no-store");
  assert.equal(signIn.headers.get("x-frame-options"), "DENY");
  assert.match(signIn.text, /<label for="email">Email address<\/label>/);
  const fields = formFields(signIn.text, "/auth/sign_in");
  const signedIn = await browser.post("/auth/sign_in", { ...fields, email: "alice@example.test", password: PASSWORD });
  assert.equal(signedIn.status, 303);
  const cookie = signedIn.headers.getSetCookie().find((c) => c.startsWith("_rookery_session="))!;
  assert.match(cookie, /; HttpOnly/);
  assert.match(cookie, /; SameSite=Lax/);
  assert.doesNotMatch(cookie, /; Secure/, "the test server's origin is http");

  const consent = await browser.get(signedIn.headers.get("location")!);
  assert.match(consent.text, /<h1>Authorize Ivory\?<\/h1>/);
  assert.match(consent.text, /<strong>@alice<\/strong>/);
  assert.match(consent.text, /<li>Read all your account&#39;s data <span class="muted">\(<code>read<\/code>\)/);
  assert.match(consent.text, /<li>Change all your account&#39;s data/);
  const res = await browser.post("/oauth/authorize", {
    ...formFields(consent.text, "/oauth/authorize"),
    decision: "approve",
  });
  assert.equal(res.status, 302);
  const location = res.headers.get("location")!;
  assert.ok(location.startsWith(`${IVORY}?code=`), location);
  assert.ok(location.endsWith("&state=xyz+1"), location);
  const code = codeOf(res);
  assert.equal(code.length, 43);

  const missing = await exchange({ code, client_id: app.client_id, redirect_uri: IVORY });
  assert.equal(missing.status, 400);
  assert.deepEqual(missing.body, {
    error: "invalid_request",
    error_description: "Missing required parameter: code_verifier.",
  });
  const wrong = await exchange({ code, client_id: app.client_id, redirect_uri: IVORY, code_verifier: "nope" });
  assert.equal(wrong.status, 400);
  assert.deepEqual(wrong.body, { error: "invalid_grant", error_description: INVALID_GRANT });

  // A public client: the verifier stands in for the secret, and JSON bodies work as forms do.
  const token = await server.post("/oauth/token", {
    json: {
      grant_type: "authorization_code",
      code,
      client_id: app.client_id,
      redirect_uri: IVORY,
      code_verifier: verifier,
    },
  });
  assert.equal(token.status, 200);
  assertEntity(t, "Token", token.body);
  assert.deepEqual(Object.keys(token.body), ["access_token", "token_type", "scope", "created_at"]);
  assert.equal(token.body.token_type, "Bearer");
  assert.equal(token.body.scope, "read write");
  assert.equal(typeof token.body.created_at, "number");
  assert.ok(Math.abs(token.body.created_at - Date.now() / 1000) < 10);
  assert.equal((await server.get("/api/v1/preferences", { token: token.body.access_token })).status, 200);
  const stored = await server.rt.db.selectFrom("oauth_access_tokens").select("token_hash").execute();
  assert.ok(
    stored.every((t) => t.token_hash !== token.body.access_token),
    "only hashes of tokens are kept",
  );

  // A code works once; using it again also revokes the token it gave (it may have been stolen).
  const reused = await exchange({ code, client_id: app.client_id, redirect_uri: IVORY, code_verifier: verifier });
  assert.equal(reused.status, 400);
  assert.deepEqual(reused.body, { error: "invalid_grant", error_description: INVALID_GRANT });
  const afterReuse = await server.get("/api/v1/preferences", { token: token.body.access_token });
  assert.equal(afterReuse.status, 401);
});

test("an app authorized before with the same scopes gets its code without the consent page", async () => {
  const browser = new Browser(server);
  const first = await authorizeThroughPages(browser, authorizeUrl({ redirect_uri: WEB, scope: "read push" }));
  assert.equal(first.status, 302);
  const token = await exchange({
    code: codeOf(first),
    client_id: app.client_id,
    client_secret: app.client_secret,
    redirect_uri: WEB,
  });
  assert.equal(token.status, 200);

  const again = await browser.get(authorizeUrl({ redirect_uri: WEB, scope: "push read", state: "s2" }));
  assert.equal(again.status, 302);
  assert.match(again.headers.get("location")!, /^https:\/\/app\.example\/cb\?code=[\w-]{43}&state=s2$/);

  const more = await browser.get(authorizeUrl({ redirect_uri: WEB, scope: "read push write" }));
  assert.equal(more.status, 200);
  assert.match(more.text, /Authorize Ivory\?/);
});

test("plain PKCE, the client secret in the body or as HTTP Basic, oob codes, and deny", async () => {
  const browser = new Browser(server);
  const challenge = "plain-challenge-value-1234567890123456789012";
  const plain = await authorizeThroughPages(
    browser,
    authorizeUrl({ redirect_uri: WEB, scope: "read", code_challenge: challenge, code_challenge_method: "plain" }),
  );
  const token = await exchange({
    code: codeOf(plain),
    client_id: app.client_id,
    client_secret: app.client_secret,
    redirect_uri: WEB,
    code_verifier: challenge,
  });
  assert.equal(token.status, 200);
  assert.equal(token.body.scope, "read");

  // Without PKCE, the client must prove its secret.
  const noPkce = await browser.get(authorizeUrl({ redirect_uri: WEB, scope: "read" }));
  const code = codeOf(noPkce);
  const withoutSecret = await exchange({ code, client_id: app.client_id, redirect_uri: WEB });
  assert.equal(withoutSecret.status, 401);
  assert.deepEqual(withoutSecret.body, { error: "invalid_client", error_description: INVALID_CLIENT });
  assert.match(withoutSecret.headers.get("www-authenticate")!, /^Bearer realm="Doorkeeper", error="invalid_client"/);
  // HTTP Basic is read first, as Doorkeeper does: a wrong secret in the body doesn't matter then.
  const basic = Buffer.from(`${app.client_id}:${app.client_secret}`).toString("base64");
  const withBasic = await exchange(
    { code, redirect_uri: WEB, client_id: app.client_id, client_secret: "wrong" },
    { authorization: `Basic ${basic}` },
  );
  assert.equal(withBasic.status, 200);

  const oob = await authorizeThroughPages(browser, authorizeUrl({ redirect_uri: OOB, scope: "read write" }));
  assert.equal(oob.status, 200);
  assert.match(oob.text, /Copy this code and paste it into Ivory:/);
  const shown = /<code class="secret" id="code">([^<]+)<\/code>/.exec(oob.text)![1];
  const oobToken = await exchange({
    code: shown,
    client_id: app.client_id,
    client_secret: app.client_secret,
    redirect_uri: OOB,
  });
  assert.equal(oobToken.status, 200);
  assert.equal(oobToken.body.scope, "read write");

  const denied = await authorizeThroughPages(
    browser,
    authorizeUrl({ redirect_uri: WEB, state: "s", scope: "follow" }),
    {
      decision: "deny",
    },
  );
  assert.equal(denied.status, 302);
  const deniedAt = new URL(denied.headers.get("location")!);
  assert.equal(`${deniedAt.origin}${deniedAt.pathname}`, WEB);
  assert.deepEqual(Object.fromEntries(deniedAt.searchParams), {
    error: "access_denied",
    error_description: "The resource owner or authorization server denied the request.",
    state: "s",
  });
});

test("response modes: fragment and form_post; loopback redirect URIs may use any port", async () => {
  const browser = new Browser(server);
  const fragment = await authorizeThroughPages(
    browser,
    authorizeUrl({ redirect_uri: WEB, scope: "push", response_mode: "fragment", state: "f" }),
  );
  assert.equal(fragment.status, 302);
  assert.match(fragment.headers.get("location")!, /^https:\/\/app\.example\/cb#code=[\w-]{43}&state=f$/);

  const formPost = await authorizeThroughPages(
    browser,
    authorizeUrl({ redirect_uri: WEB, scope: "read write push", response_mode: "form_post" }),
  );
  assert.equal(formPost.status, 200);
  assert.match(formPost.text, /<body onload="document.forms\[0\].submit\(\)">/);
  const posted = formFields(formPost.text, WEB);
  assert.deepEqual(Object.keys(posted), ["code"]);
  assert.equal(posted.code.length, 43);

  const loopback = "http://127.0.0.1:49152/callback";
  const native = await authorizeThroughPages(browser, authorizeUrl({ redirect_uri: loopback, scope: "profile" }));
  assert.equal(native.status, 302);
  assert.ok(native.headers.get("location")!.startsWith(`${loopback}?code=`));
  const token = await exchange({
    code: codeOf(native),
    client_id: app.client_id,
    client_secret: app.client_secret,
    redirect_uri: loopback,
  });
  assert.equal(token.status, 200);
  const otherHost = await browser.get(authorizeUrl({ redirect_uri: "http://127.0.0.2:49152/callback" }));
  assert.equal(otherHost.status, 400);
});

test("bad authorization requests get an error page, never a redirect", async () => {
  const browser = new Browser(server);
  const cases: [string, number, string][] = [
    [`/oauth/authorize?response_type=code&redirect_uri=${WEB}`, 400, "Missing required parameter: client_id."],
    [`/oauth/authorize?response_type=code&client_id=nope&redirect_uri=${WEB}`, 401, INVALID_CLIENT],
    [
      authorizeUrl({ redirect_uri: "https://evil.example/cb" }),
      400,
      "The requested redirect uri is malformed or doesn&#39;t match client redirect URI.",
    ],
    [
      authorizeUrl({ redirect_uri: WEB, scope: "admin:read", state: "q" }),
      400,
      "The requested scope is invalid, unknown, or malformed.",
    ],
    [
      authorizeUrl({ redirect_uri: WEB, scope: "read fly" }),
      400,
      "The requested scope is invalid, unknown, or malformed.",
    ],
    [
      `${authorizeUrl({ redirect_uri: WEB })}&response_type=token`.replace("response_type=code&", ""),
      400,
      "The authorization server does not support this response type.",
    ],
    [
      authorizeUrl({ redirect_uri: WEB, response_mode: "web_message" }),
      400,
      "The authorization server does not support this response mode.",
    ],
    [
      authorizeUrl({ redirect_uri: WEB, code_challenge: "abc", code_challenge_method: "S512" }),
      400,
      "The code_challenge_method must be one of S256, plain.",
    ],
    [
      `${authorizeUrl({ redirect_uri: WEB })}&scope[]=read`,
      400,
      "The request is missing a required parameter, includes an unsupported parameter value, or is otherwise malformed.",
    ],
  ];
  for (const [url, status, message] of cases) {
    const res = await browser.get(url);
    assert.equal(res.status, status, url);
    assert.equal(res.headers.get("location"), null, url);
    assert.match(res.headers.get("content-type")!, /^text\/html/, url);
    assert.ok(res.text.includes("<h1>An error has occurred</h1>"), url);
    assert.ok(res.text.includes(message), `${url}: ${res.text}`);
  }
});

test("the token endpoint answers every failure as Doorkeeper does", async () => {
  const client = { client_id: app.client_id, client_secret: app.client_secret };
  const noGrant = await server.post("/oauth/token", { form: client });
  assert.equal(noGrant.status, 400);
  assert.deepEqual(noGrant.body, {
    error: "invalid_request",
    error_description: "Missing required parameter: grant_type.",
  });
  const implicit = await server.post("/oauth/token", { form: { ...client, grant_type: "implicit" } });
  assert.equal(implicit.status, 400);
  assert.deepEqual(implicit.body, {
    error: "unsupported_grant_type",
    error_description: "The authorization grant type is not supported by the authorization server.",
  });
  const noRedirect = await exchange({ ...client, code: "whatever" });
  assert.equal(noRedirect.status, 400);
  assert.deepEqual(noRedirect.body, {
    error: "invalid_request",
    error_description: "Missing required parameter: redirect_uri.",
  });
  const unknownCode = await exchange({ ...client, code: "whatever", redirect_uri: WEB });
  assert.equal(unknownCode.status, 400);
  assert.equal(unknownCode.body.error, "invalid_grant");
  const unknownClient = await exchange({ client_id: "nope", client_secret: "x", code: "c", redirect_uri: WEB });
  assert.equal(unknownClient.status, 401);
  assert.equal(unknownClient.body.error, "invalid_client");
  for (const header of ["Basic !!!", "Basic bm9jb2xvbg==", `Basic ${Buffer.from("%zz:%zz").toString("base64")}`]) {
    const res = await server.post("/oauth/token", {
      form: { grant_type: "client_credentials" },
      headers: { authorization: header },
    });
    assert.equal(res.status, 401, header);
    assert.equal(res.body.error, "invalid_client", header);
  }
  const arrayParam = await server.post("/oauth/token", { json: { grant_type: ["password"] } });
  assert.equal(arrayParam.status, 400);
  assert.equal(arrayParam.body.error, "invalid_request");

  // A code is bound to its client and its redirect URI.
  const browser = new Browser(server);
  const res = await authorizeThroughPages(browser, authorizeUrl({ redirect_uri: WEB, scope: "write" }));
  const code = codeOf(res);
  const other = (
    await server.post("/api/v1/apps", { json: { client_name: "Other", redirect_uris: WEB, scopes: "write" } })
  ).body;
  const otherClient = await exchange({
    code,
    client_id: other.client_id,
    client_secret: other.client_secret,
    redirect_uri: WEB,
  });
  assert.equal(otherClient.body.error, "invalid_grant");
  const otherUri = await exchange({ code, ...client, redirect_uri: OOB });
  assert.equal(otherUri.body.error, "invalid_grant");
  // Those failures did not use the code up.
  assert.equal((await exchange({ code, ...client, redirect_uri: WEB })).status, 200);
});

test("codes expire after ten minutes", async () => {
  const browser = new Browser(server);
  const res = await authorizeThroughPages(browser, authorizeUrl({ redirect_uri: WEB, scope: "read follow" }));
  const grant = await server.rt.db
    .selectFrom("oauth_access_grants")
    .select(["id", "created_at", "expires_at"])
    .orderBy("id", "desc")
    .executeTakeFirstOrThrow();
  assert.equal(grant.expires_at.getTime() - grant.created_at.getTime(), 600_000);
  await server.rt.db
    .updateTable("oauth_access_grants")
    .set({ expires_at: new Date(Date.now() - 1000) })
    .where("id", "=", grant.id)
    .execute();
  const late = await exchange({
    code: codeOf(res),
    client_id: app.client_id,
    client_secret: app.client_secret,
    redirect_uri: WEB,
  });
  assert.equal(late.status, 400);
  assert.equal(late.body.error, "invalid_grant");
});

test("password and client_credentials grants, with scopes bounded by the app", async () => {
  const pw = await passwordToken("read write");
  assert.equal(pw.status, 200);
  assert.equal(pw.body.scope, "read write");
  const caseless = await passwordToken("read", "ALICE@example.test");
  assert.equal(caseless.status, 200);
  const badPw = await server.post("/oauth/token", {
    form: { grant_type: "password", username: "alice@example.test", password: "x", ...appCredentials() },
  });
  assert.equal(badPw.status, 400);
  assert.deepEqual(badPw.body, { error: "invalid_grant", error_description: INVALID_GRANT });
  const noUser = await server.post("/oauth/token", { form: { grant_type: "password", ...appCredentials() } });
  assert.equal(noUser.body.error, "invalid_grant");
  const noSecret = await server.post("/oauth/token", {
    form: { grant_type: "password", username: "alice@example.test", password: PASSWORD, client_id: app.client_id },
  });
  assert.equal(noSecret.status, 401);
  const badScope = await passwordToken("admin:read");
  assert.equal(badScope.status, 400);
  assert.equal(badScope.body.error, "invalid_scope");

  const cc = await server.post("/oauth/token", { form: { grant_type: "client_credentials", ...appCredentials() } });
  assert.equal(cc.status, 200);
  assert.equal(cc.body.scope, "read", "Mastodon's default scope");
  const pushOnly = await server.post("/oauth/token", {
    form: { grant_type: "client_credentials", ...appCredentials(), scope: "push" },
  });
  assert.equal(pushOnly.body.scope, "push");
  const tooMuch = await server.post("/oauth/token", {
    form: { grant_type: "client_credentials", ...appCredentials(), scope: "admin:write" },
  });
  assert.equal(tooMuch.status, 400);
  assert.deepEqual(tooMuch.body, {
    error: "invalid_scope",
    error_description: "The requested scope is invalid, unknown, or malformed.",
  });
  const badSecret = await server.post("/oauth/token", {
    form: { grant_type: "client_credentials", client_id: app.client_id, client_secret: "x" },
  });
  assert.equal(badSecret.status, 401);
  // An app token is not a user: Mastodon's 422.
  const appOnly = await server.get("/api/v1/preferences", { token: cc.body.access_token });
  assert.equal(appOnly.status, 422);
  assert.deepEqual(appOnly.body, { error: "This method requires an authenticated user" });
});

function appCredentials() {
  return { client_id: app.client_id, client_secret: app.client_secret };
}

test("scopes are enforced; the profile scope reaches only the profile", async () => {
  const readOnly = (await passwordToken("read")).body.access_token;
  const denied = await server.post("/api/v1/markers", { token: readOnly, json: { home: { last_read_id: "1" } } });
  assert.equal(denied.status, 403);
  assert.deepEqual(denied.body, { error: "This action is outside the authorized scopes" });
  assert.equal((await server.get("/api/v1/markers", { token: readOnly })).status, 200);

  const profile = (await passwordToken("profile")).body.access_token;
  const me = await server.get("/api/v1/accounts/verify_credentials", { token: profile });
  assert.equal(me.status, 200);
  assert.equal(me.body.username, "alice");
  assert.equal((await server.get("/api/v1/markers", { token: profile })).status, 403);

  const follow = (await passwordToken("follow")).body.access_token;
  assert.equal((await server.get("/api/v1/markers", { token: follow })).status, 403);
});

test("revocation: the app's own tokens only, client credentials required, 200 for unknown tokens", async () => {
  const token = (await passwordToken("read")).body.access_token;
  const other = (await server.post("/api/v1/apps", { json: { client_name: "Other", redirect_uris: OOB } })).body;
  const notYours = await server.post("/oauth/revoke", {
    form: { client_id: other.client_id, client_secret: other.client_secret, token },
  });
  assert.equal(notYours.status, 403);
  assert.deepEqual(notYours.body, {
    error: "unauthorized_client",
    error_description: "You are not authorized to revoke this token",
  });
  const noSecret = await server.post("/oauth/revoke", { form: { client_id: app.client_id, token } });
  assert.equal(noSecret.status, 403);
  assert.equal(noSecret.body.error, "unauthorized_client");
  assert.equal((await server.get("/api/v1/markers", { token })).status, 200);

  const revoked = await server.post("/oauth/revoke", { json: { ...appCredentials(), token } });
  assert.equal(revoked.status, 200);
  assert.deepEqual(revoked.body, {});
  const afterRevoke = await server.get("/api/v1/markers", { token });
  assert.equal(afterRevoke.status, 401);
  assert.deepEqual(afterRevoke.body, { error: "The access token is invalid" });
  const twice = await server.post("/oauth/revoke", { form: { ...appCredentials(), token } });
  assert.equal(twice.status, 200);
  const unknown = await server.post("/oauth/revoke", { form: { ...appCredentials(), token: "never-issued" } });
  assert.equal(unknown.status, 200);
  assert.deepEqual(unknown.body, {});
  const noToken = await server.post("/oauth/revoke", { form: appCredentials() });
  assert.equal(noToken.status, 200);
});

test("userinfo needs the profile scope and a user", async () => {
  const profile = (await passwordToken("profile")).body.access_token;
  const expected = {
    iss: `${server.url}/`,
    sub: `${server.url}/users/alice`,
    name: "",
    preferred_username: "alice",
    profile: `${server.url}/@alice`,
    picture: `${server.url}/avatars/original/missing.png`,
  };
  const info = await server.get("/oauth/userinfo", { token: profile });
  assert.equal(info.status, 200);
  assert.deepEqual(info.body, expected);
  const posted = await server.post("/oauth/userinfo", { token: profile });
  assert.deepEqual(posted.body, expected);

  const read = await server.get("/oauth/userinfo", { token: alice.token });
  assert.equal(read.status, 403);
  assert.deepEqual(read.body, { error: "This action is outside the authorized scopes" });
  assert.equal((await server.get("/oauth/userinfo")).status, 401);
  const appToken = (
    await server.post("/oauth/token", {
      form: { grant_type: "client_credentials", ...appCredentials(), scope: "profile" },
    })
  ).body.access_token;
  const noUser = await server.get("/oauth/userinfo", { token: appToken });
  assert.equal(noUser.status, 422);
});

test("the authorization server metadata document (RFC 8414)", async (t) => {
  const meta = await server.get("/.well-known/oauth-authorization-server");
  assert.equal(meta.status, 200);
  assertEntity(t, "DiscoverOauthServerConfigurationResponse", meta.body);
  assert.equal(meta.headers.get("access-control-allow-origin"), "*");
  const { scopes_supported: scopes, ...rest } = meta.body;
  assert.deepEqual(rest, {
    issuer: `${server.url}/`,
    service_documentation: "https://docs.joinmastodon.org/",
    authorization_endpoint: `${server.url}/oauth/authorize`,
    token_endpoint: `${server.url}/oauth/token`,
    app_registration_endpoint: `${server.url}/api/v1/apps`,
    revocation_endpoint: `${server.url}/oauth/revoke`,
    userinfo_endpoint: `${server.url}/oauth/userinfo`,
    response_types_supported: ["code"],
    response_modes_supported: ["query", "fragment", "form_post"],
    grant_types_supported: ["authorization_code", "password", "client_credentials"],
    token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
    code_challenge_methods_supported: ["S256", "plain"],
  });
  for (const scope of ["read", "write", "follow", "push", "profile", "read:statuses", "admin:write:reports"]) {
    assert.ok(scopes.includes(scope), scope);
  }
});
