// Reading accounts: by id, by many ids, lookup, search; the 404 and 410 rules; how remote and
// suspended accounts render.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { accountEntity } from "../src/api/account_pages.ts";
import { newId } from "../src/domain/ids.ts";
import { BUILT_IN_ROLES } from "../src/domain/roles.ts";
import { assertEntity } from "./conformance.ts";
import { remoteAccount, setAccount } from "./fixtures.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let remoteId: string;

/** A remote account as federation would have stored it, with a profile. */
const remote = (username: string, domain: string, columns: { url?: string | null } = {}) =>
  remoteAccount(server, username, domain, {
    display_name: `${username} elsewhere`,
    avatar_remote_url: `https://${domain}/avatar.png`,
    discoverable: true,
    ...columns,
  });

const suspend = (accountId: string) => setAccount(server, accountId, { suspended_at: new Date() });

before(async () => {
  server = await startServer();
  alice = await server.user("alice");
  bob = await server.user("bob");
  carol = await server.user("carol");
  await setAccount(server, bob.accountId, { display_name: "Bobby Tables" });
  remoteId = await remote("bob", "remote.example");
});
after(() => server.close());

test("an account by id, open to everyone, matching Mastodon's Account", async (t) => {
  const res = await server.get(`/api/v1/accounts/${alice.accountId}`);
  assert.equal(res.status, 200);
  const a = res.body;
  assertEntity(t, "Account", a);
  assert.deepEqual(Object.keys(a), [
    "id",
    "username",
    "acct",
    "display_name",
    "locked",
    "bot",
    "discoverable",
    "indexable",
    "group",
    "created_at",
    "note",
    "url",
    "uri",
    "avatar",
    "avatar_static",
    "header",
    "header_static",
    "followers_count",
    "following_count",
    "statuses_count",
    "last_status_at",
    "hide_collections",
    "emojis",
    "fields",
    "noindex",
    "roles",
  ]);
  assert.equal(a.id, alice.accountId);
  assert.equal(a.username, "alice");
  assert.equal(a.acct, "alice");
  assert.equal(a.url, `${server.url}/@alice`);
  assert.equal(a.uri, `${server.url}/users/alice`);
  assert.equal(a.avatar, `${server.url}/avatars/original/missing.png`);
  assert.equal(a.avatar_static, `${server.url}/avatars/original/missing.png`);
  assert.equal(a.header_static, `${server.url}/headers/original/missing.png`);
  assert.match(a.created_at, /^\d{4}-\d\d-\d\dT00:00:00\.000Z$/);
  assert.equal(a.last_status_at, null);
  assert.deepEqual([a.followers_count, a.following_count, a.statuses_count], [0, 0, 0]);
  assert.deepEqual(
    [a.locked, a.bot, a.group, a.discoverable, a.indexable, a.noindex],
    [false, false, false, null, false, false],
  );
  assert.deepEqual(a.roles, []);
});

test("a remote account: acct with its domain, no roles or noindex, its url or else its uri", async (t) => {
  const res = await server.get(`/api/v1/accounts/${remoteId}`);
  assert.equal(res.status, 200);
  assertEntity(t, "Account", res.body);
  assert.equal(res.body.acct, "bob@remote.example");
  assert.equal(res.body.url, "https://remote.example/@bob");
  assert.equal(res.body.avatar, "https://remote.example/avatar.png");
  assert.equal(res.body.avatar_static, "https://remote.example/avatar.png");
  assert.equal(res.body.header, `${server.url}/headers/original/missing.png`);
  assert.equal("roles" in res.body, false);
  assert.equal("noindex" in res.body, false);
  const noUrl = await remote("nourl", "remote.example", { url: null });
  assert.equal((await server.get(`/api/v1/accounts/${noUrl}`)).body.url, "https://remote.example/users/nourl");
});

test("staff badges: highlighted roles on the public account", async () => {
  const mod = await server.user("moddy", { role: "moderator" });
  const res = await server.get(`/api/v1/accounts/${mod.accountId}`);
  assert.deepEqual(res.body.roles, [{ id: "1", name: "Moderator", color: "" }]);
});

test("unknown ids are 404, suspended accounts 410, unconfirmed and pending ones hidden", async () => {
  assert.deepEqual((await server.get("/api/v1/accounts/123456789")).body, { error: "Record not found" });
  assert.equal((await server.get("/api/v1/accounts/not-an-id")).status, 404);
  const eve = await server.user("eve");
  await suspend(eve.accountId);
  const gone = await server.get(`/api/v1/accounts/${eve.accountId}`);
  assert.equal(gone.status, 410);
  assert.deepEqual(gone.body, { error: "Gone" });
  assert.equal((await server.get("/api/v1/accounts/lookup", { query: { acct: "eve" } })).status, 410);

  const dan = await server.user("dan");
  await server.rt.db.updateTable("users").set({ confirmed_at: null }).where("id", "=", dan.userId).execute();
  assert.equal((await server.get(`/api/v1/accounts/${dan.accountId}`)).status, 404);
  const fay = await server.user("fay");
  await server.rt.db.updateTable("users").set({ approved: false }).where("id", "=", fay.userId).execute();
  assert.equal((await server.get(`/api/v1/accounts/${fay.accountId}`)).status, 404);

  const many = await server.get("/api/v1/accounts", {
    query: { "id[]": [bob.accountId, dan.accountId, "999", eve.accountId, remoteId, fay.accountId, alice.accountId] },
  });
  assert.equal(many.status, 200);
  assert.deepEqual(
    many.body.map((a: { acct: string }) => a.acct),
    ["bob", "bob@remote.example", "alice"],
  );
  assert.deepEqual((await server.get("/api/v1/accounts")).body, []);
  const tooMany = await server.get("/api/v1/accounts", {
    query: { "id[]": Array.from({ length: 41 }, (_, i) => String(i + 1)) },
  });
  assert.equal(tooMany.status, 422);
});

test("a suspended account renders empty wherever it appears", async (t) => {
  const gil = await server.user("gil");
  await server.patch("/api/v1/accounts/update_credentials", {
    token: gil.token,
    json: { display_name: "Gil", note: "bio", locked: true, bot: true, discoverable: true, indexable: true },
  });
  await server.rt.db.updateTable("users").set({ role_id: BUILT_IN_ROLES.admin }).where("id", "=", gil.userId).execute();
  await suspend(gil.accountId);
  const a = await accountEntity(server.rt, gil.accountId);
  assertEntity(t, "Account", a);
  assert.ok(a);
  assert.equal(a.suspended, true);
  assert.deepEqual(
    [a.display_name, a.note, a.locked, a.bot, a.discoverable, a.indexable, a.fields, a.roles],
    ["", "", false, false, false, false, [], []],
  );
  assert.equal(a.avatar, `${server.url}/avatars/original/missing.png`);
});

test("a token, when given, needs the read scope", async () => {
  const writeOnly = await server.user("writer", { scopes: ["write"] });
  assert.equal((await server.get(`/api/v1/accounts/${alice.accountId}`, { token: writeOnly.token })).status, 403);
  assert.equal((await server.get(`/api/v1/accounts/${alice.accountId}`, { token: alice.token })).status, 200);
});

test("lookup by acct, with or without the local domain; remote accounts known here", async () => {
  const port = new URL(server.url).port;
  for (const acct of ["bob", "@bob", "BOB", ` bob `, `bob@127.0.0.1:${port}`, `acct:bob@127.0.0.1:${port}`]) {
    const res = await server.get("/api/v1/accounts/lookup", { query: { acct } });
    assert.equal(res.status, 200, acct);
    assert.equal(res.body.id, bob.accountId);
  }
  for (const acct of ["bob@remote.example", "@Bob@REMOTE.example"]) {
    const res = await server.get("/api/v1/accounts/lookup", { query: { acct } });
    assert.equal(res.body.id, remoteId, acct);
  }
  for (const acct of ["nobody", "bob@unknown.example"]) {
    const res = await server.get("/api/v1/accounts/lookup", { query: { acct } });
    assert.equal(res.status, 404, acct);
    assert.deepEqual(res.body, { error: "Record not found" });
  }
  assert.equal((await server.get("/api/v1/accounts/lookup")).status, 404);
});

test("search by username or display name, ranked, leaving out blocked, muted and moved accounts", async () => {
  const search = async (q: Record<string, string>, token = alice.token) => {
    const res = await server.get("/api/v1/accounts/search", { token, query: q });
    assert.equal(res.status, 200, JSON.stringify(q));
    return res.body.map((a: { acct: string }) => a.acct);
  };
  // The exact match first, then the others by the same prefix.
  assert.deepEqual(await search({ q: "bob" }), ["bob", "bob@remote.example"]);
  assert.deepEqual(await search({ q: "bob@remote.example" }), ["bob@remote.example"]);
  assert.deepEqual(await search({ q: "@bob@rem" }), ["bob@remote.example"]);
  assert.deepEqual(await search({ q: `bob@127.0.0.1:${new URL(server.url).port}` }), ["bob"]);
  assert.deepEqual(await search({ q: "bobby t" }), ["bob"]);
  assert.deepEqual(await search({ q: "TABLES" }), ["bob"], "any word of the display name");
  assert.deepEqual(await search({ q: "bob", limit: "1" }), ["bob"]);
  assert.deepEqual(await search({ q: "bob", limit: "1", offset: "1" }), ["bob@remote.example"]);
  assert.deepEqual(await search({ q: "bob", limit: "0" }), []);
  assert.deepEqual(await search({ q: "" }), []);
  assert.deepEqual(await search({}), []);
  assert.deepEqual(await search({ q: "#bob" }), []);
  assert.deepEqual(await search({ q: "%" }), [], "LIKE wildcards are plain characters");
  assert.deepEqual(await search({ q: "c" }), ["carol"]);

  // Followed accounts come before others, and `following` keeps only them.
  const now = new Date();
  await server.rt.db
    .insertInto("follows")
    .values({ id: newId(), account_id: alice.accountId, target_account_id: remoteId, uri: null, created_at: now })
    .execute();
  assert.deepEqual(await search({ q: "bo" }), ["bob@remote.example", "bob"]);
  assert.deepEqual(await search({ q: "bo", following: "true" }), ["bob@remote.example"]);

  await server.rt.db
    .insertInto("mutes")
    .values({ id: newId(), account_id: alice.accountId, target_account_id: carol.accountId, created_at: now })
    .execute();
  assert.deepEqual(await search({ q: "carol" }), []);
  assert.deepEqual(await search({ q: "carol" }, bob.token), ["carol"], "only the muter stops seeing them");
  await server.rt.db
    .insertInto("blocks")
    .values({ id: newId(), account_id: bob.accountId, target_account_id: alice.accountId, created_at: now, uri: null })
    .execute();
  assert.deepEqual(await search({ q: "bob" }), ["bob@remote.example"], "blocked by bob");

  const old = await server.user("oldname");
  await setAccount(server, old.accountId, { moved_to_account_id: carol.accountId });
  assert.deepEqual(await search({ q: "oldname" }), []);
  const zed = await server.user("zed");
  await suspend(zed.accountId);
  assert.deepEqual(await search({ q: "zed" }), []);

  assert.equal((await server.get("/api/v1/accounts/search", { query: { q: "bob" } })).status, 401);
});

test("identity proofs were retired: an empty list for any existing account", async () => {
  const res = await server.get(`/api/v1/accounts/${alice.accountId}/identity_proofs`, { token: alice.token });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, []);
  assert.equal((await server.get(`/api/v1/accounts/99999/identity_proofs`, { token: alice.token })).status, 404);
  assert.equal((await server.get(`/api/v1/accounts/${alice.accountId}/identity_proofs`)).status, 401);
});
