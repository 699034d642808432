// What the server says about itself.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, test } from "node:test";
import { isoWeek } from "../src/services/auth/authenticate.ts";
import { addRule, removeRule } from "../src/services/instance/rules.ts";
import { publishTerms, setSiteText } from "../src/services/instance/texts.ts";
import { blockDomain } from "../src/services/moderation/domain_blocks.ts";
import { assertEntity } from "./conformance.ts";
import { insertStatus, remoteAccount } from "./fixtures.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let owner: TestUser;

before(async () => {
  server = await startServer({
    env: { SITE_TITLE: "Birds", SITE_CONTACT_EMAIL: "admin@birds.test", SHOW_DOMAIN_BLOCKS: "users" },
  });
  owner = await server.user("owner", { role: "owner" });
});
after(() => server.close());

/** Every string that names an id, anywhere in a document. */
function ids(value: unknown, out: unknown[] = []): unknown[] {
  if (Array.isArray(value)) for (const v of value) ids(v, out);
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k === "id" || k.endsWith("_id")) out.push(v);
      ids(v, out);
    }
  }
  return out;
}

test("v2 instance: a Mastodon Instance with our limits, works without a token", async (t) => {
  const res = await server.get("/api/v2/instance");
  assert.equal(res.status, 200);
  assertEntity(t, "Instance", res.body);
  const i = res.body;
  assert.equal(i.domain, new URL(server.url).host);
  assert.equal(i.title, "Birds");
  assert.match(i.version, /^4\.5\.0 \(compatible; Rookery \d+\.\d+\.\d+\)$/);
  assert.equal(i.api_versions.mastodon, 7);
  assert.equal(i.configuration.statuses.max_characters, 500);
  assert.equal(i.configuration.statuses.characters_reserved_per_url, 23);
  assert.equal(i.configuration.polls.max_options, 4);
  assert.equal(i.configuration.accounts.max_pinned_statuses, 5);
  assert.equal(i.configuration.accounts.max_note_length, 500);
  assert.equal(i.configuration.urls.streaming, server.url.replace(/^http/, "ws"));
  assert.match(i.configuration.vapid.public_key, /^B[\w-]{86}$/);
  assert.deepEqual(i.registrations, {
    enabled: true,
    approval_required: false,
    reason_required: false,
    message: null,
    min_age: null,
    url: null,
  });
  assert.equal(i.contact.email, "admin@birds.test");
  assert.equal(i.contact.account.username, "owner");
  assert.equal((await fetch(i.thumbnail.url)).status, 200);
  assert.equal((await fetch(i.icon[0].src)).headers.get("content-type"), "image/png");
  for (const id of ids(i)) assert.equal(typeof id, "string");
  assert.equal(
    res.headers.get("cache-control"),
    "max-age=300, public, stale-while-revalidate=60, stale-if-error=86400",
  );
});

test("the instance documents and NodeInfo are prepared bytes: ETag, 304, HEAD, the same through the router", async () => {
  for (const path of ["/api/v1/instance", "/api/v2/instance", "/nodeinfo/2.0", "/nodeinfo/2.1"]) {
    const first = await server.get(path);
    const etag = first.headers.get("etag")!;
    assert.match(etag, /^"[\w-]{32}"$/);
    assert.equal(first.headers.get("access-control-allow-origin"), "*");
    assert.match(first.headers.get("access-control-expose-headers")!, /Mastodon-Async-Refresh/);
    assert.match(first.headers.get("x-request-id")!, /^[0-9a-f-]{36}$/);
    assert.equal(first.headers.get("content-length"), String(Buffer.byteLength(first.text)));
    // With a trailing slash, and with a query string (which the router answers), the same bytes.
    for (const variant of [`${path}/`, `${path}?x=1`]) {
      const again = await server.get(variant);
      assert.equal(again.text, first.text, variant);
      assert.equal(again.headers.get("etag"), etag, variant);
      assert.equal(again.headers.get("cache-control"), first.headers.get("cache-control"), variant);
    }
    for (const variant of [path, `${path}?x=1`]) {
      const cached = await server.get(variant, { headers: { "if-none-match": `W/${etag}, "other"` } });
      assert.equal(cached.status, 304, variant);
      assert.equal(cached.text, "");
    }
    const head = await server.request("HEAD", path);
    assert.equal(head.status, 200);
    assert.equal(head.text, "");
    assert.equal(head.headers.get("etag"), etag);
  }
  assert.equal((await server.get("/nodeinfo/2.0")).headers.get("cache-control"), "max-age=1800, public");
  assert.equal(
    (await server.get("/nodeinfo/2.1")).headers.get("content-type"),
    'application/json; profile="http://nodeinfo.diaspora.software/ns/schema/2.1#"',
  );
  // A token, even an invalid one, changes nothing: the documents are the same for everyone.
  assert.equal((await server.get("/api/v2/instance", { token: "not-a-token" })).status, 200);
});

test("v1 instance: the older entity, with counts", async (t) => {
  const res = await server.get("/api/v1/instance");
  assertEntity(t, "V1Instance", res.body);
  assert.equal(res.body.uri, new URL(server.url).host);
  assert.equal(res.body.stats.user_count, 1);
  assert.equal(res.body.contact_account.username, "owner");
  assert.equal(res.body.approval_required, false);
});

test("rules appear once added, and the cached documents follow", async (t) => {
  const before = await server.get("/api/v2/instance");
  assert.deepEqual(before.body.rules, []);
  const rule = await addRule(server.rt, "Be kind", "Really.");
  const list = await server.get("/api/v1/instance/rules");
  assertEntity(t, "Rule", list.body[0]);
  assert.deepEqual(list.body, [{ id: rule.id, text: "Be kind", hint: "Really.", translations: {} }]);
  const after = await server.get("/api/v2/instance");
  assert.deepEqual(
    after.body.rules.map((r: { text: string }) => r.text),
    ["Be kind"],
  );
  assert.notEqual(after.headers.get("etag"), before.headers.get("etag"));
  const stale = await server.get("/api/v2/instance", { headers: { "if-none-match": before.headers.get("etag")! } });
  assert.equal(stale.status, 200);
  await removeRule(server.rt, rule.id);
  assert.deepEqual((await server.get("/api/v1/instance")).body.rules, []);
});

test("activity: 12 weeks, newest first, every number a string", async () => {
  const user = await server.user("active");
  await server.rt.db
    .insertInto("weekly_activity")
    .values({ week: isoWeek(new Date()), account_id: user.accountId })
    .execute();
  await insertStatus(server, user.accountId);
  const server2 = await startServer();
  try {
    await server2.user("x");
    const res = await server.get("/api/v1/instance/activity");
    assert.equal(res.body.length, 12);
    for (const w of res.body) for (const v of Object.values(w)) assert.equal(typeof v, "string");
    const [thisWeek, lastWeek] = res.body;
    assert.equal(Number(thisWeek.week) - Number(lastWeek.week), 7 * 86400);
    assert.equal(new Date(Number(thisWeek.week) * 1000).getUTCDay(), 1, "weeks start on Monday");
    assert.equal(thisWeek.statuses, "1");
    assert.equal(thisWeek.logins, "1");
    assert.equal(thisWeek.registrations, "2");
  } finally {
    await server2.close();
  }
});

test("peers: domains of known remote accounts, less the suspended ones", async () => {
  for (const [name, domain] of [
    ["a", "one.example"],
    ["b", "two.example"],
    ["c", "bad.example"],
    ["d", "one.example"],
  ]) {
    await remoteAccount(server, name, domain);
  }
  await blockDomain(server.rt, { domain: "bad.example", severity: "suspend", publicComment: "spam" });
  await blockDomain(server.rt, { domain: "loud.example.org", severity: "silence", obfuscate: true });
  assert.deepEqual((await server.get("/api/v1/instance/peers")).body, ["one.example", "two.example"]);
});

test("domain blocks are shown to signed-in users here, with digest and obfuscation", async (t) => {
  assert.equal((await server.get("/api/v1/instance/domain_blocks")).status, 404);
  const res = await server.get("/api/v1/instance/domain_blocks", { token: owner.token });
  assert.equal(res.status, 200);
  for (const b of res.body) assertEntity(t, "DomainBlock", b);
  assert.deepEqual(res.body[0], {
    domain: "bad.example",
    digest: createHash("sha256").update("bad.example").digest("hex"),
    severity: "suspend",
    comment: "spam",
  });
  assert.equal(res.body[1].domain, "loud.*******.org");
  assert.equal(res.body[1].severity, "silence");
});

test("texts: about, privacy policy (with a default), terms of service by date", async (t) => {
  const about = await server.get("/api/v1/instance/extended_description");
  assertEntity(t, "ExtendedDescription", { ...about.body, updated_at: about.body.updated_at ?? "" });
  assert.deepEqual(about.body, { updated_at: null, content: "" });
  await setSiteText(server.rt, "extended_description", "# Welcome\n\nA server for **birds**. <script>x()</script>");
  const set = await server.get("/api/v1/instance/extended_description");
  assert.equal(set.body.content, "<h1>Welcome</h1>\n<p>A server for <strong>birds</strong>. </p>");
  const page = await server.get("/about");
  assert.match(page.text, /<strong>birds<\/strong>/);

  const policy = await server.get("/api/v1/instance/privacy_policy");
  assertEntity(t, "PrivacyPolicy", policy.body);
  assert.match(policy.body.content, /^<p>This server keeps what you give it/);

  assert.equal((await server.get("/api/v1/instance/terms_of_service")).status, 404);
  await publishTerms(server.rt, "Old terms.", "2020-01-01");
  await publishTerms(server.rt, "New terms.", "2099-01-01");
  const terms = await server.get("/api/v1/instance/terms_of_service");
  assertEntity(t, "TermsOfService", terms.body);
  assert.deepEqual(terms.body, {
    effective_date: "2020-01-01",
    effective: true,
    content: "<p>Old terms.</p>",
    succeeded_by: "2099-01-01",
  });
  const future = await server.get("/api/v1/instance/terms_of_service/2099-01-01");
  assert.deepEqual(future.body, {
    effective_date: "2099-01-01",
    effective: false,
    content: "<p>New terms.</p>",
    succeeded_by: null,
  });
  assert.equal((await server.get("/api/v1/instance/terms_of_service/1999-01-01")).status, 404);
});

test("languages, and no translation languages", async () => {
  const langs = await server.get("/api/v1/instance/languages");
  assert.deepEqual(
    langs.body.find((l: { code: string }) => l.code === "fr"),
    { code: "fr", name: "French" },
  );
  assert.ok(langs.body.length > 180);
  assert.deepEqual((await server.get("/api/v1/instance/translation_languages")).body, {});
});

test("nodeinfo and host-meta", async () => {
  const links = await server.get("/.well-known/nodeinfo");
  assert.deepEqual(
    links.body.links.map((l: { href: string }) => l.href),
    [`${server.url}/nodeinfo/2.0`, `${server.url}/nodeinfo/2.1`],
  );
  const info = await server.get("/nodeinfo/2.0");
  assert.equal(info.body.version, "2.0");
  assert.equal(info.body.software.name, "rookery");
  assert.deepEqual(info.body.protocols, ["activitypub"]);
  assert.equal(typeof info.body.usage.users.total, "number");
  assert.equal(info.body.openRegistrations, true);
  assert.match(info.headers.get("content-type")!, /profile="http:\/\/nodeinfo\.diaspora\.software\/ns\/schema\/2\.0#"/);
  assert.equal(
    (await server.get("/nodeinfo/2.1")).body.software.repository,
    "https://github.com/rookery-social/rookery",
  );
  const xrd = await server.get("/.well-known/host-meta");
  assert.match(xrd.headers.get("content-type")!, /application\/xrd\+xml/);
  assert.match(xrd.text, /template="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/webfinger\?resource=\{uri\}"/);
  const json = await server.get("/.well-known/host-meta", { headers: { accept: "application/json" } });
  assert.equal(json.body.links[0].rel, "lrdd");
});
