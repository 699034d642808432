// Every path answers with and without one trailing slash, as Rails does (Mastodon.py asks for
// /api/v1/instance/ to learn the version): the same answer, never a redirect.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { knownRoutes } from "./known_routes.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let alice: TestUser;
let bob: TestUser;
before(async () => {
  // Every route twice: more requests than the rate limits let through.
  server = await startServer({ env: { RATE_LIMITS: "off" } });
  alice = await server.user("alice");
  bob = await server.user("bob");
});
after(() => server.close());

/** The answer without the parts that differ between two requests. */
const comparable = (body: unknown) =>
  JSON.stringify(body, (key, value) => (key === "created_at" || key === "id" ? undefined : value));

test("API, OAuth and page routes answer the same with a trailing slash, GET and POST", async () => {
  for (const path of [
    "/api/v1/instance",
    "/api/v2/instance",
    "/api/v1/conversations",
    "/api/v1/timelines/public",
    "/api/v1/accounts/verify_credentials",
    "/.well-known/nodeinfo",
    "/.well-known/oauth-authorization-server",
    "/about",
    "/auth/sign_in",
    "/@alice",
  ]) {
    const plain = await server.get(path, { token: alice.token });
    const slashed = await server.get(`${path}/`, { token: alice.token });
    assert.equal(plain.status, 200, path);
    assert.equal(slashed.status, 200, `${path}/`);
    assert.equal(slashed.headers.get("location"), null, `${path}/`);
    assert.equal(slashed.headers.get("content-type"), plain.headers.get("content-type"), `${path}/`);
    if (typeof plain.body !== "string") assert.equal(comparable(slashed.body), comparable(plain.body), `${path}/`);
  }

  const posted = await server.post("/api/v1/statuses/", { token: bob.token, json: { status: "Slashed" } });
  assert.equal(posted.status, 200);
  assert.equal(posted.body.content, "<p>Slashed</p>");
  const report = await server.post("/api/v1/reports/", {
    token: alice.token,
    form: { account_id: bob.accountId, "status_ids[]": posted.body.id, comment: "spam" },
  });
  assert.equal(report.status, 200);
  assert.equal(report.body.target_account.id, bob.accountId);
  const fav = await server.post(`/api/v1/statuses/${posted.body.id}/favourite/`, { token: alice.token });
  assert.equal(fav.status, 200);
  assert.equal(fav.body.favourited, true);

  const app = await server.post("/api/v1/apps/", {
    json: { client_name: "Slashes", redirect_uris: "urn:ietf:wg:oauth:2.0:oob", scopes: "read" },
  });
  assert.equal(app.status, 200);
  const token = await server.post("/oauth/token/", {
    form: { grant_type: "client_credentials", client_id: app.body.client_id, client_secret: app.body.client_secret },
  });
  assert.equal(token.status, 200);
  assert.equal(token.body.token_type, "Bearer");
  const verified = await server.get("/api/v1/apps/verify_credentials/", { token: token.body.access_token });
  assert.equal(verified.status, 200);
  assert.equal(verified.body.name, "Slashes");
});

test("the Link header of a slashed request names the path without the slash, and keeps only plain filters", async () => {
  for (let i = 0; i < 3; i++) await server.post("/api/v1/statuses", { token: bob.token, json: { status: `n${i}` } });
  const page = await server.get(`/api/v1/accounts/${bob.accountId}/statuses/`, {
    token: alice.token,
    query: { limit: "1", only_media: "false", "x[]": "y", "a[b][c]": "1", long: "z".repeat(3000) },
  });
  assert.equal(page.status, 200);
  const link = page.headers.get("link")!;
  const next = new URL(/<([^>]+)>; rel="next"/.exec(link)![1]);
  assert.equal(next.pathname, `/api/v1/accounts/${bob.accountId}/statuses`);
  // Plain filters are kept; what could only blow up the header is not.
  assert.deepEqual([...next.searchParams.keys()], ["limit", "only_media", "x[]", "max_id"]);
});

test("one trailing slash is ignored, not two", async () => {
  assert.equal((await server.get("/api/v1/instance//")).status, 404);
});

// Routes whose handler answers 404 on a fresh server (no terms of service, domain blocks not
// shown, no confirmation or password reset token; streaming served on this host; no account named by
// the filled-in handle; no post named by an oEmbed request without a URL; no remote attachment
// for the media proxy) with no token check before.
const NOT_FOUND_BY_DESIGN = new Set([
  "GET /api/v1/instance/terms_of_service",
  "GET /api/v1/instance/terms_of_service/:date",
  "GET /api/v1/instance/domain_blocks",
  "GET /auth/confirmation",
  "GET /auth/password/edit",
  "GET /terms-of-service",
  "GET /api/v1/streaming",
  "GET /:handle{@[^/]+}",
  "GET /:handle{@[^/]+}/:id",
  "GET /:handle{@[^/]+}/:id/embed",
  "GET /api/oembed",
  "GET /media_proxy/:id/:style",
]);

test("every route the router knows reaches its handler with a trailing slash", async () => {
  const routes = knownRoutes(server.rt);
  assert.ok(routes.size > 150, `only ${routes.size} routes`);
  // A token that is not valid: routes with a token check answer 401 from their guard, which
  // proves the route was matched (the router alone would answer 404).
  const wrong: string[] = [];
  for (const [key, { method, path }] of routes) {
    // The home page is its own slashed form.
    if (path === "/") continue;
    const concrete = path.replace(/:[a-z_]+/g, (name) => (name === ":date" ? "2026-01-01" : "1"));
    const options = { token: "not-a-token", headers: { accept: "application/json" } };
    const plain = await server.request(method, concrete, options);
    const slashed = await server.request(method, `${concrete}/`, options);
    if (slashed.status !== plain.status || (plain.status === 404 && !NOT_FOUND_BY_DESIGN.has(key))) {
      wrong.push(`${key}: ${plain.status}, slashed ${slashed.status}`);
    }
  }
  assert.deepEqual(wrong, []);
});
