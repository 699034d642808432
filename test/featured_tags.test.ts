// Hashtags featured on a profile: /api/v1/featured_tags, suggestions, an account's featured tags,
// and featuring from the hashtag's side.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { assertEntity } from "./conformance.ts";
import { post, setAccount } from "./fixtures.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let alice: TestUser;
let bob: TestUser;

before(async () => {
  server = await startServer();
  alice = await server.user("alice");
  bob = await server.user("bob");
  await post(server, alice, "hello #Rookery");
  await post(server, alice, { status: "again #rookery and #other", visibility: "unlisted" });
  await post(server, alice, { status: "quietly #rookery", visibility: "private" });
  await post(server, alice, "#third");
});
after(() => server.close());

const today = () => new Date().toISOString().slice(0, 10);

test("featuring a tag: counts of public and unlisted posts, a link to them, listed and shown on the profile", async (t) => {
  const suggestions = await server.get("/api/v1/featured_tags/suggestions", { token: alice.token });
  assert.equal(suggestions.status, 200);
  assert.deepEqual(
    suggestions.body.map((tag: { name: string }) => tag.name),
    ["Rookery", "third", "other"],
    "the most used first, then the newest",
  );
  assertEntity(t, "Tag", suggestions.body[0]);
  assert.equal(suggestions.body[0].featuring, false);

  const res = await server.post("/api/v1/featured_tags", { token: alice.token, form: { name: "#RooKery" } });
  assert.equal(res.status, 200);
  assertEntity(t, "FeaturedTag", res.body);
  assert.deepEqual(res.body, {
    id: res.body.id,
    name: "RooKery",
    url: `${server.url}/@alice/tagged/rookery`,
    statuses_count: "2",
    last_status_at: today(),
  });
  const again = await server.post("/api/v1/featured_tags", { token: alice.token, json: { name: "rookery" } });
  assert.equal(again.body.id, res.body.id, "featuring twice changes nothing");

  const mine = await server.get("/api/v1/featured_tags", { token: alice.token });
  assert.deepEqual(mine.body, [res.body]);
  const shown = await server.get(`/api/v1/accounts/${alice.accountId}/featured_tags`);
  assert.equal(shown.status, 200);
  assert.deepEqual(shown.body, [res.body]);

  const after = await server.get("/api/v1/featured_tags/suggestions", { token: alice.token });
  assert.deepEqual(
    after.body.map((tag: { name: string }) => tag.name),
    ["third", "other"],
  );
  const tag = await server.get("/api/v1/tags/rookery", { token: alice.token });
  assert.equal(tag.body.featuring, true);
  assert.equal((await server.get("/api/v1/tags/rookery", { token: bob.token })).body.featuring, false);
});

test("featuring from the hashtag: POST /api/v1/tags/:name/feature and unfeature", async (t) => {
  const featured = await server.post("/api/v1/tags/other/feature", { token: alice.token });
  assert.equal(featured.status, 200);
  assertEntity(t, "Tag", featured.body);
  assert.deepEqual([featured.body.name, featured.body.featuring, featured.body.following], ["other", true, false]);
  const list = await server.get("/api/v1/featured_tags", { token: alice.token });
  assert.deepEqual(
    list.body.map((f: { name: string; statuses_count: string }) => [f.name, f.statuses_count]),
    [
      ["RooKery", "2"],
      ["other", "1"],
    ],
  );
  const unfeatured = await server.post("/api/v1/tags/other/unfeature", { token: alice.token });
  assert.equal(unfeatured.body.featuring, false);
  assert.equal((await server.post("/api/v1/tags/other/unfeature", { token: alice.token })).status, 200);
  assert.equal((await server.post("/api/v1/tags/no%20tag/feature", { token: alice.token })).status, 404);
});

test("names are checked, ten at most, and only one's own can be removed", async () => {
  const refuse = async (name: string | undefined, error: string) => {
    const res = await server.post("/api/v1/featured_tags", {
      token: bob.token,
      json: name === undefined ? {} : { name },
    });
    assert.equal(res.status, 422, String(name));
    assert.deepEqual(res.body, { error });
  };
  await refuse(undefined, "Validation failed: Name can't be blank");
  await refuse(" # ", "Validation failed: Name can't be blank");
  await refuse("no spaces", "Validation failed: Name is invalid");
  await refuse("1234", "Validation failed: Name is invalid");

  const ids: string[] = [];
  for (let i = 0; i < 10; i++) {
    const res = await server.post("/api/v1/featured_tags", { token: bob.token, form: { name: `tag${i}` } });
    assert.equal(res.status, 200);
    assert.deepEqual([res.body.statuses_count, res.body.last_status_at], ["0", null]);
    ids.push(res.body.id);
  }
  await refuse("eleventh", "Validation failed: You have already featured the maximum number of hashtags");
  assert.equal((await server.post("/api/v1/featured_tags", { token: bob.token, form: { name: "tag3" } })).status, 200);

  const notYours = await server.delete(`/api/v1/featured_tags/${ids[0]}`, { token: alice.token });
  assert.deepEqual([notYours.status, notYours.body], [404, { error: "Record not found" }]);
  const removed = await server.delete(`/api/v1/featured_tags/${ids[0]}`, { token: bob.token });
  assert.deepEqual([removed.status, removed.body], [200, {}]);
  assert.equal((await server.get("/api/v1/featured_tags", { token: bob.token })).body.length, 9);
  assert.equal((await server.delete("/api/v1/featured_tags/nope", { token: bob.token })).status, 404);
});

test("scopes, unknown and suspended accounts", async () => {
  const reader = await server.user("reader", { scopes: ["read"] });
  assert.equal((await server.post("/api/v1/featured_tags", { token: reader.token, form: { name: "x" } })).status, 403);
  assert.equal((await server.get("/api/v1/featured_tags", { token: reader.token })).status, 200);
  assert.equal((await server.get("/api/v1/featured_tags")).status, 401);
  assert.equal((await server.get("/api/v1/accounts/123456/featured_tags")).status, 404);
  await setAccount(server, bob.accountId, { suspended_at: new Date() });
  assert.deepEqual((await server.get(`/api/v1/accounts/${bob.accountId}/featured_tags`)).body, []);
});
