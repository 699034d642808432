// The admin API's hashtags, trends review and dashboard numbers (measures, dimensions, retention);
// and that every admin operation of Mastodon's documentation is a route here.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { OPENAPI } from "./conformance.ts";
import { post, setAccount } from "./fixtures.ts";
import { knownRoutes } from "./known_routes.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let moderator: TestUser;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let tagId: string;
let trendingId: string;

const ADMIN = ["read", "write", "admin:read", "admin:write"];

before(async () => {
  server = await startServer();
  moderator = await server.user("mod", { role: "moderator", scopes: ADMIN });
  alice = await server.user("alice");
  bob = await server.user("bob");
  carol = await server.user("carol");
  await setAccount(server, alice.accountId, { discoverable: true });
  trendingId = (await post(server, alice, { status: "Look at the #Puffins", language: "en" })).id;
  await post(server, bob, { status: "More #puffins", language: "de" });
  for (const fan of [bob, carol]) {
    assert.equal((await server.post(`/api/v1/statuses/${trendingId}/favourite`, { token: fan.token })).status, 200);
  }
  const tag = await server.rt.db
    .selectFrom("tags")
    .select("id")
    .where("name", "=", "puffins")
    .executeTakeFirstOrThrow();
  tagId = tag.id;
});
after(() => server.close());

const as = (user: TestUser, method: string, path: string, json?: Record<string, unknown>) =>
  server.request(method, path, { token: user.token, json });
const ok = async (method: string, path: string, json?: Record<string, unknown>) => {
  const res = await as(moderator, method, path, json);
  assert.equal(res.status, 200, `${method} ${path}: ${res.text}`);
  return res.body;
};

test("every admin operation of Mastodon's documentation is a route", (t) => {
  const table = join(dirname(OPENAPI), "docs-endpoints.tsv");
  if (!existsSync(table)) return t.skip(`${table} is missing`);
  const routes = knownRoutes(server.rt);
  const admin = readFileSync(table, "utf8")
    .split("\n")
    .map((line) => line.split("\t"))
    .filter((cols) => cols[0] === "admin");
  assert.equal(admin.length, 47);
  const missing = admin.map(([, method, path]) => `${method} ${path}`).filter((key) => !routes.has(key));
  assert.deepEqual(missing, []);
});

test("hashtags: listed, reviewed, kept out of search when unlisted", async () => {
  const tags = await ok("GET", "/api/v1/admin/tags");
  const puffins = tags.find((t: any) => t.id === tagId);
  assert.deepEqual(
    [puffins.name, puffins.trendable, puffins.usable, puffins.listable, puffins.requires_review],
    ["Puffins", false, true, true, true],
  );
  const search = async () =>
    (
      await server.get("/api/v2/search", { token: alice.token, query: { q: "#puff", type: "hashtags" } })
    ).body.hashtags.map((h: any) => h.name);
  assert.deepEqual(await search(), ["Puffins"]);
  const changed = await ok("PUT", `/api/v1/admin/tags/${tagId}`, { listable: false, display_name: "PUFFINS" });
  assert.deepEqual([changed.listable, changed.name], [false, "PUFFINS"]);
  assert.deepEqual(await search(), []);
  await ok("PUT", `/api/v1/admin/tags/${tagId}`, { listable: true, display_name: "something else" });
  assert.equal((await ok("GET", `/api/v1/admin/tags/${tagId}`)).name, "PUFFINS");
  assert.equal((await as(alice, "GET", "/api/v1/admin/tags")).status, 403);
});

test("trends review: tags and statuses approved and rejected; no links yet", async () => {
  const publicTags = async () =>
    (await server.get("/api/v1/trends/tags", { token: alice.token })).body.map((t: any) => t.id);
  assert.deepEqual(await publicTags(), []);
  assert.ok((await ok("GET", "/api/v1/admin/trends/tags")).some((t: any) => t.id === tagId));
  const approved = await ok("POST", `/api/v1/admin/trends/tags/${tagId}/approve`);
  assert.deepEqual([approved.trendable, approved.requires_review], [true, false]);
  assert.deepEqual(await publicTags(), [tagId]);
  // A tag that is not usable does not trend, approved or not, and is not offered for review.
  await ok("PUT", `/api/v1/admin/tags/${tagId}`, { usable: false });
  assert.deepEqual(await publicTags(), []);
  assert.ok(!(await ok("GET", "/api/v1/admin/trends/tags")).some((t: any) => t.id === tagId));
  await ok("PUT", `/api/v1/admin/tags/${tagId}`, { usable: true });
  assert.deepEqual(await publicTags(), [tagId]);
  await ok("POST", `/api/v1/admin/trends/tags/${tagId}/reject`);
  assert.deepEqual(await publicTags(), []);

  const publicStatuses = async () =>
    (await server.get("/api/v1/trends/statuses", { token: alice.token })).body.map((s: any) => s.id);
  assert.deepEqual(await publicStatuses(), [trendingId]);
  const rejected = await ok("POST", `/api/v1/admin/trends/statuses/${trendingId}/reject`);
  assert.equal(rejected.id, trendingId);
  assert.deepEqual(await publicStatuses(), []);
  assert.deepEqual(
    (await ok("GET", "/api/v1/admin/trends/statuses")).map((s: any) => s.id),
    [trendingId],
  );
  await ok("POST", `/api/v1/admin/trends/statuses/${trendingId}/approve`);
  assert.deepEqual(await publicStatuses(), [trendingId]);

  assert.deepEqual(await ok("GET", "/api/v1/admin/trends/links"), []);
  assert.equal((await as(moderator, "POST", "/api/v1/admin/trends/links/1/approve")).status, 404);
  assert.equal((await as(moderator, "POST", "/api/v1/admin/trends/statuses/1/approve")).status, 404);
  assert.equal((await as(alice, "GET", "/api/v1/admin/trends/tags")).status, 403);
});

const today = new Date().toISOString().slice(0, 10);
const weekAgo = new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10);

test("measures: counts per day from our own tables, the previous period beside them", async () => {
  await as(bob, "POST", "/api/v1/reports", { account_id: alice.accountId });
  const res = await ok("POST", "/api/v1/admin/measures", {
    keys: [
      "new_users",
      "opened_reports",
      "resolved_reports",
      "interactions",
      "tag_uses",
      "tag_accounts",
      "active_users",
      "nonsense",
    ],
    start_at: weekAgo,
    end_at: today,
    tag_uses: { id: tagId },
    tag_accounts: { id: tagId },
  });
  const byKey = Object.fromEntries(res.map((m: any) => [m.key, m]));
  assert.deepEqual(Object.keys(byKey).sort(), [
    "active_users",
    "interactions",
    "new_users",
    "opened_reports",
    "resolved_reports",
    "tag_accounts",
    "tag_uses",
  ]);
  const last = (key: string) => byKey[key].data.at(-1);
  assert.equal(byKey.new_users.data.length, 7);
  assert.equal(last("new_users").date, `${today}T00:00:00.000Z`);
  assert.deepEqual([byKey.new_users.total, byKey.new_users.previous_total, last("new_users").value], ["4", "0", "4"]);
  assert.deepEqual([byKey.opened_reports.total, byKey.resolved_reports.total], ["1", "0"]);
  assert.deepEqual([byKey.tag_uses.total, byKey.tag_accounts.total], ["2", "2"]);
  assert.equal(byKey.interactions.total, "2");
  assert.ok(Number(byKey.active_users.total) >= 1);

  const missing = await as(moderator, "POST", "/api/v1/admin/measures", { keys: ["new_users"] });
  assert.equal(missing.status, 400);
  assert.equal(
    (await as(alice, "POST", "/api/v1/admin/measures", { keys: ["new_users"], start_at: today, end_at: today })).status,
    403,
  );
});

test("dimensions: languages, servers, space and software", async () => {
  const res = await ok("POST", "/api/v1/admin/dimensions", {
    keys: ["languages", "software_versions", "space_usage", "tag_languages", "servers", "sources"],
    start_at: weekAgo,
    end_at: today,
    limit: 5,
    tag_languages: { id: tagId },
  });
  const byKey = Object.fromEntries(res.map((d: any) => [d.key, d.data]));
  assert.deepEqual(
    byKey.languages.map((d: any) => [d.key, d.human_key, d.value]),
    [
      ["de", "German", "1"],
      ["en", "English", "1"],
    ],
  );
  assert.deepEqual(byKey.tag_languages.map((d: any) => d.key).sort(), ["de", "en"]);
  assert.equal(byKey.software_versions[0].key, "rookery");
  assert.ok(byKey.space_usage.every((d: any) => d.unit === "bytes" && Number(d.value) >= 0));
  assert.deepEqual(byKey.servers, []);
  assert.ok(Array.isArray(byKey.sources));
});

test("retention: each day's sign-ups, and how many came back", async () => {
  const res = await ok("POST", "/api/v1/admin/retention", { start_at: today, end_at: today, frequency: "day" });
  assert.equal(res.length, 1);
  assert.deepEqual(
    [res[0].frequency, res[0].period, res[0].data[0].rate, res[0].data[0].value],
    ["day", `${today}T00:00:00.000Z`, 1, "4"],
  );
  const monthly = await ok("POST", "/api/v1/admin/retention", { start_at: weekAgo, end_at: today, frequency: "month" });
  assert.ok(monthly.length >= 1);
  assert.equal(
    (await as(moderator, "POST", "/api/v1/admin/retention", { start_at: today, end_at: today, frequency: "year" }))
      .status,
    400,
  );
});
