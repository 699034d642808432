// A token that is not valid (unknown, or revoked) is a 401 wherever a token is checked, including
// the routes open to everyone: the client learns its token is dead instead of reading as a stranger.
// Routes that Mastodon keeps free of token checks (instance, app registration) ignore it, as there.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let alice: TestUser;
let statusId: string;
let revoked: string;
before(async () => {
  server = await startServer();
  alice = await server.user("alice");
  statusId = (await server.post("/api/v1/statuses", { token: alice.token, json: { status: "Hello" } })).body.id;
  const app = (
    await server.post("/api/v1/apps", {
      json: { client_name: "Revoked", redirect_uris: "urn:ietf:wg:oauth:2.0:oob", scopes: "read write" },
    })
  ).body;
  const credentials = { client_id: app.client_id, client_secret: app.client_secret };
  const issued = await server.post("/oauth/token", {
    form: {
      grant_type: "password",
      username: "alice@example.test",
      password: "correct horse battery staple",
      scope: "read",
      ...credentials,
    },
  });
  revoked = issued.body.access_token;
  assert.equal((await server.get("/api/v1/timelines/public", { token: revoked })).status, 200);
  assert.equal((await server.post("/oauth/revoke", { form: { token: revoked, ...credentials } })).status, 200);
});
after(() => server.close());

const INVALID = { error: "The access token is invalid" };

test("a bad or revoked token is a 401 on routes open to everyone", async () => {
  const open = [
    "/api/v1/timelines/public",
    `/api/v1/statuses/${statusId}`,
    `/api/v1/statuses/${statusId}/context`,
    `/api/v1/accounts/${alice.accountId}`,
    `/api/v1/accounts/${alice.accountId}/statuses`,
    "/api/v1/tags/cats",
    "/api/v1/timelines/tag/cats",
  ];
  for (const path of open) {
    assert.equal((await server.get(path)).status, 200, `${path} without a token`);
    for (const token of ["not-a-token", revoked]) {
      const res = await server.get(path, { token });
      assert.deepEqual([res.status, res.body], [401, INVALID], `${path} with ${token}`);
    }
    const inQuery = await server.get(path, { query: { access_token: "not-a-token" } });
    assert.deepEqual([inQuery.status, inQuery.body], [401, INVALID], `${path}?access_token=`);
  }
  assert.equal((await server.get("/api/v1/timelines/home", { token: revoked })).status, 401);
});

test("the instance and app registration ignore the token, as Mastodon's do", async () => {
  for (const path of ["/api/v1/instance", "/api/v2/instance", "/api/v1/instance/rules"]) {
    const res = await server.get(path, { token: "not-a-token" });
    assert.equal(res.status, 200, path);
  }
  const app = await server.post("/api/v1/apps", {
    token: "not-a-token",
    json: { client_name: "Fresh", redirect_uris: "urn:ietf:wg:oauth:2.0:oob" },
  });
  assert.equal(app.status, 200);
  assert.equal(app.body.name, "Fresh");
});

test("an Authorization header that is not a bearer token is no token at all", async () => {
  const res = await server.get("/api/v1/timelines/public", { headers: { authorization: "Basic Zm9vOmJhcg==" } });
  assert.equal(res.status, 200);
});
