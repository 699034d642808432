import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createRestAPIClient } from "masto";
import { assertEntity } from "./conformance.ts";
import { startServer, type TestServer } from "./rig.ts";

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.close());

test("an app registers with a JSON body and gets its credentials once", async (t) => {
  const res = await server.post("/api/v1/apps", {
    json: {
      client_name: "Tusky",
      redirect_uris: ["com.keylesspalace.tusky://oauth", "urn:ietf:wg:oauth:2.0:oob"],
      scopes: "read write follow push",
      website: "https://tusky.app",
    },
  });
  assert.equal(res.status, 200);
  const app = res.body;
  assertEntity(t, "CredentialApplication", app);
  assert.match(app.id, /^\d+$/);
  assert.equal(app.name, "Tusky");
  assert.equal(app.website, "https://tusky.app");
  assert.deepEqual(app.scopes, ["read", "write", "follow", "push"]);
  assert.deepEqual(app.redirect_uris, ["com.keylesspalace.tusky://oauth", "urn:ietf:wg:oauth:2.0:oob"]);
  assert.equal(app.redirect_uri, "com.keylesspalace.tusky://oauth\nurn:ietf:wg:oauth:2.0:oob");
  assert.equal(app.client_id.length, 43);
  assert.equal(app.client_secret.length, 43);
  assert.equal(app.client_secret_expires_at, 0);
  assert.match(app.vapid_key, /^B[A-Za-z0-9_-]{86}$/);
  const instance = await server.get("/api/v2/instance");
  assert.equal(instance.body.configuration.vapid.public_key, app.vapid_key, "one key pair for the server");
  const stored = await server.rt.db
    .selectFrom("oauth_applications")
    .selectAll()
    .where("id", "=", app.id)
    .executeTakeFirstOrThrow();
  assert.notEqual(stored.client_secret_hash, app.client_secret, "only a hash of the secret is kept");
});

test("form-encoded registration, redirect URIs one per line or as an array, default scope read", async () => {
  const res = await server.post("/api/v1/apps", {
    form: { client_name: "bot", redirect_uris: "https://a.example/cb\nhttps://b.example/cb" },
  });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.scopes, ["read"]);
  assert.deepEqual(res.body.redirect_uris, ["https://a.example/cb", "https://b.example/cb"]);
  assert.equal(res.body.redirect_uri, "https://a.example/cb\nhttps://b.example/cb");
  assert.equal(res.body.website, null);
  const again = await server.post("/api/v1/apps", {
    form: { client_name: "bot2", "redirect_uris[]": ["https://c.example/cb", "urn:ietf:wg:oauth:2.0:oob"] },
  });
  assert.deepEqual(again.body.redirect_uris, ["https://c.example/cb", "urn:ietf:wg:oauth:2.0:oob"]);
  // Any whitespace separates URIs, as Mastodon splits them; scopes may come as an array too.
  const spaced = await server.post("/api/v1/apps", {
    json: {
      client_name: "bot3",
      redirect_uris: " https://d.example/cb  https://e.example/cb ",
      scopes: ["read", "push"],
    },
  });
  assert.equal(spaced.status, 200);
  assert.deepEqual(spaced.body.redirect_uris, ["https://d.example/cb", "https://e.example/cb"]);
  assert.deepEqual(spaced.body.scopes, ["read", "push"]);
});

test("invalid registrations are 422 with Mastodon's messages, and nothing is stored", async () => {
  const before = await server.rt.db.selectFrom("oauth_applications").select("id").execute();
  const cases: [Record<string, unknown>, string][] = [
    [{ redirect_uris: "https://a.example/cb" }, "Validation failed: Application name can't be blank"],
    [{ client_name: "x" }, "Validation failed: Redirect URI can't be blank"],
    [{ client_name: "x", redirect_uris: "/cb" }, "Validation failed: Redirect URI must be an absolute URI."],
    [
      { client_name: "x", redirect_uris: "https://a.example/cb#frag" },
      "Validation failed: Redirect URI cannot contain a fragment.",
    ],
    [{ client_name: "x", redirect_uris: "myapp:callback" }, "Validation failed: Redirect URI must specify a scheme."],
    [{ client_name: "x", redirect_uris: "http:///cb" }, "Validation failed: Redirect URI must be a valid URI."],
    [
      { client_name: "x", redirect_uris: "https://a.example/ü" },
      "Validation failed: Redirect URI must be a valid URI.",
    ],
    [
      { client_name: "x", redirect_uris: "javascript:/alert(1)" },
      "Validation failed: Redirect URI is forbidden by the server.",
    ],
    [
      { client_name: "x", redirect_uris: "https://a.example/cb", scopes: "read fly" },
      "Validation failed: Scopes doesn't match configured on the server.",
    ],
    [
      { client_name: "x", redirect_uris: "https://a.example/cb", scopes: "read:reports" },
      "Validation failed: Scopes doesn't match configured on the server.",
    ],
    [
      { client_name: "x".repeat(61), redirect_uris: "https://a.example/cb" },
      "Validation failed: Application name is too long (maximum is 60 characters)",
    ],
    [
      { client_name: "x", redirect_uris: "https://a.example/cb", website: "ftp://a.example" },
      "Validation failed: Application website is not a valid URL",
    ],
    [
      { client_name: "x", redirect_uris: `https://a.example/${"a".repeat(2000)}` },
      "Validation failed: Redirect URI is too long (maximum is 2000 characters)",
    ],
    [
      { client_name: "", scopes: "crypto" },
      "Validation failed: Application name can't be blank, Redirect URI can't be blank, Scopes doesn't match configured on the server.",
    ],
    [
      { client_name: ["x"], redirect_uris: "https://a.example/cb" },
      "Validation failed: client_name Invalid input: expected string, received array",
    ],
  ];
  for (const [json, error] of cases) {
    const res = await server.post("/api/v1/apps", { json });
    assert.equal(res.status, 422, JSON.stringify(json));
    assert.deepEqual(res.body, { error }, JSON.stringify(json));
  }
  const afterwards = await server.rt.db.selectFrom("oauth_applications").select("id").execute();
  assert.equal(afterwards.length, before.length);
});

test("verify_credentials answers for app and user tokens, without the secret", async (t) => {
  const user = await server.user("appuser");
  const res = await server.get("/api/v1/apps/verify_credentials", { token: user.token });
  assert.equal(res.status, 200);
  assert.equal(res.body.name, "Rookery tests");
  assert.equal(res.body.client_secret, undefined);
  assert.equal(res.body.client_id, undefined);

  const registered = (
    await server.post("/api/v1/apps", {
      json: {
        client_name: "Phanpy",
        redirect_uris: "https://phanpy.social/",
        scopes: "push",
        website: "https://phanpy.social",
      },
    })
  ).body;
  const appToken = await server.post("/oauth/token", {
    form: {
      grant_type: "client_credentials",
      client_id: registered.client_id,
      client_secret: registered.client_secret,
      scope: "push",
    },
  });
  const verified = await server.get("/api/v1/apps/verify_credentials", { token: appToken.body.access_token });
  assert.equal(verified.status, 200);
  assertEntity(t, "Application", verified.body);
  assert.deepEqual(verified.body, {
    id: registered.id,
    name: "Phanpy",
    website: "https://phanpy.social",
    scopes: ["push"],
    redirect_uri: "https://phanpy.social/",
    redirect_uris: ["https://phanpy.social/"],
    vapid_key: registered.vapid_key,
  });
  assert.equal((await server.get("/api/v1/apps/verify_credentials")).status, 401);
  const bad = await server.get("/api/v1/apps/verify_credentials", { token: "nope" });
  assert.equal(bad.status, 401);
  assert.deepEqual(bad.body, { error: "The access token is invalid" });
});

test("masto.js registers an app and gets a client-credentials token the way real clients do", async () => {
  const masto = createRestAPIClient({ url: server.url });
  const app = await masto.v1.apps.create({
    clientName: "masto",
    redirectUris: "urn:ietf:wg:oauth:2.0:oob",
    scopes: "read write",
  });
  assert.equal(app.name, "masto");
  const token = await server.post("/oauth/token", {
    form: {
      grant_type: "client_credentials",
      client_id: app.clientId!,
      client_secret: app.clientSecret!,
      scope: "read",
    },
  });
  assert.equal(token.status, 200);
  const authed = createRestAPIClient({ url: server.url, accessToken: token.body.access_token });
  const verified = await authed.v1.apps.verifyCredentials();
  assert.equal(verified.name, "masto");
  assert.deepEqual(verified.scopes, ["read", "write"]);
});
