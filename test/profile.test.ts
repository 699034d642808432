// The caller's own profile: verify_credentials and update_credentials.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import sharp from "sharp";
import { assertEntity } from "./conformance.ts";
import { setAccount } from "./fixtures.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let alice: TestUser;
let bob: TestUser;

before(async () => {
  server = await startServer();
  alice = await server.user("alice");
  bob = await server.user("bob");
});
after(() => server.close());

const png = (w: number, h: number) =>
  sharp({ create: { width: w, height: h, channels: 3, background: { r: 200, g: 50, b: 50 } } })
    .png()
    .toBuffer();

async function animatedGif(width: number, height: number): Promise<Uint8Array<ArrayBuffer>> {
  const frame = (color: string) =>
    sharp({ create: { width, height, channels: 4, background: color } })
      .gif()
      .toBuffer();
  const gif = await sharp([await frame("#0f0"), await frame("#00f")], { join: { animated: true } })
    .gif()
    .toBuffer();
  return new Uint8Array(gif);
}

const update = (user: TestUser, json: Record<string, unknown>) =>
  server.patch("/api/v1/accounts/update_credentials", { token: user.token, json });

test("verify_credentials is a CredentialAccount with source and role", async (t) => {
  const res = await server.get("/api/v1/accounts/verify_credentials", { token: alice.token });
  assert.equal(res.status, 200);
  assertEntity(t, "CredentialAccount", res.body);
  assert.equal(res.body.id, alice.accountId);
  assert.deepEqual(res.body.source, {
    privacy: "public",
    sensitive: false,
    language: null,
    quote_policy: "public",
    note: "",
    fields: [],
    follow_requests_count: 0,
    hide_collections: false,
    discoverable: null,
    indexable: false,
    attribution_domains: [],
  });
  assert.deepEqual(res.body.role, { id: "-99", name: "", permissions: "65536", color: "", highlighted: false });
  const admin = await server.user("boss", { role: "admin" });
  const adminMe = await server.get("/api/v1/accounts/verify_credentials", { token: admin.token });
  assert.equal(adminMe.body.role.name, "Admin");
  assert.equal(adminMe.body.role.highlighted, true);
  assert.deepEqual(adminMe.body.roles, [{ id: "2", name: "Admin", color: "" }]);
  const owner = await server.user("chief", { role: "owner" });
  const ownerMe = await server.get("/api/v1/accounts/verify_credentials", { token: owner.token });
  assert.equal(ownerMe.body.role.permissions, String(2 ** 20 - 1), "every permission, administrator included");
});

test("pending follow requests are counted in source, up to 40", async () => {
  const requester = await server.user("fan");
  await server.rt.db
    .insertInto("follow_requests")
    .values({ id: "42", account_id: requester.accountId, target_account_id: bob.accountId, created_at: new Date() })
    .execute();
  const res = await server.get("/api/v1/accounts/verify_credentials", { token: bob.token });
  assert.equal(res.body.source.follow_requests_count, 1);
  await server.rt.db.deleteFrom("follow_requests").where("id", "=", "42").execute();
});

test("update_credentials with JSON: names, bio with mention and link, fields, flags, source", async (t) => {
  const res = await update(alice, {
    display_name: "  Alice 🐦  ",
    note: "Hi, I know @bob.\nSee https://example.com/about #birds\n",
    locked: true,
    bot: true,
    discoverable: true,
    hide_collections: true,
    indexable: true,
    fields_attributes: [
      { name: "Site", value: "https://alice.example.org" },
      { name: "Pronouns", value: "she/her" },
    ],
    attribution_domains: ["https://blog.example.org", "*.news.example", "blog.example.org", ""],
    source: { privacy: "unlisted", sensitive: true, language: "fr" },
  });
  assert.equal(res.status, 200);
  assertEntity(t, "CredentialAccount", res.body);
  const a = res.body;
  assert.equal(a.display_name, "Alice 🐦");
  assert.equal(
    a.note,
    `<p>Hi, I know <span class="h-card" translate="no"><a href="${server.url}/@bob" class="u-url mention">@<span>bob</span></a></span>.<br />See <a href="https://example.com/about" target="_blank" rel="nofollow noopener" translate="no"><span class="invisible">https://</span><span class="">example.com/about</span><span class="invisible"></span></a> <a href="${server.url}/tags/birds" class="mention hashtag" rel="tag">#<span>birds</span></a></p>`,
  );
  assert.equal(a.source.note, "Hi, I know @bob.\nSee https://example.com/about #birds");
  assert.deepEqual([a.locked, a.bot, a.discoverable, a.hide_collections, a.indexable], [true, true, true, true, true]);
  assert.equal(a.fields[0].name, "Site");
  assert.match(a.fields[0].value, /rel="nofollow noopener me"/);
  assert.deepEqual(a.source.fields[1], { name: "Pronouns", value: "she/her", verified_at: null });
  assert.deepEqual(a.source.attribution_domains, ["blog.example.org", "news.example"]);
  assert.deepEqual([a.source.privacy, a.source.sensitive, a.source.language], ["unlisted", true, "fr"]);
  const prefs = await server.get("/api/v1/preferences", { token: alice.token });
  assert.equal(prefs.body["posting:default:visibility"], "unlisted");
  // What others see follows.
  const seen = await server.get(`/api/v1/accounts/${alice.accountId}`);
  assert.deepEqual([seen.body.display_name, seen.body.locked, seen.body.bot], ["Alice 🐦", true, true]);
  // Fields and flags not sent stay as they are.
  const again = await update(alice, { display_name: "Alice" });
  assert.deepEqual([again.body.source.fields.length, again.body.locked], [2, true]);
  assert.equal(again.body.source.note, a.source.note);
});

test("form-encoded fields by index; empty source values change nothing and are no error", async () => {
  const res = await server.patch("/api/v1/accounts/update_credentials", {
    token: bob.token,
    form: {
      "fields_attributes[0][name]": "A",
      "fields_attributes[0][value]": "1",
      "fields_attributes[1][name]": "",
      "fields_attributes[1][value]": "",
      "fields_attributes[2][name]": "C",
      "fields_attributes[2][value]": "",
      "source[privacy]": "",
      "source[language]": "",
      locked: "0",
      bot: "",
    },
  });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.source.fields, [
    { name: "A", value: "1", verified_at: null },
    { name: "C", value: "", verified_at: null },
  ]);
  assert.equal(res.body.source.privacy, "public");
  assert.equal(res.body.source.language, null);
  assert.equal(res.body.locked, false);
  assert.equal(res.body.bot, false);
});

test("source values Mastodon would not save change nothing, and answer 200", async () => {
  await update(bob, { source: { language: "de", privacy: "private" } });
  const res = await update(bob, { source: { privacy: "direct", language: "klingon" } });
  assert.equal(res.status, 200);
  assert.deepEqual([res.body.source.privacy, res.body.source.language], ["private", "de"]);
  const cleared = await update(bob, { source: { language: "" } });
  assert.equal(cleared.body.source.language, null, "an empty language means: detect it");
});

test("limits answer 422 with Mastodon's details", async () => {
  const err = (error: string, description: string) => [{ error, description }];
  const cases: [Record<string, unknown>, string, Record<string, unknown>][] = [
    [
      { display_name: "x".repeat(31) },
      "Validation failed: Display name is too long (maximum is 30 characters)",
      { display_name: err("ERR_TOO_LONG", "is too long (maximum is 30 characters)") },
    ],
    [
      { note: "y".repeat(501) },
      "Validation failed: Note is too long (maximum is 500 characters)",
      { note: err("ERR_TOO_LONG", "is too long (maximum is 500 characters)") },
    ],
    [
      { fields_attributes: Array.from({ length: 5 }, (_, i) => ({ name: `n${i}`, value: "v" })) },
      "Validation failed: Fields is too long (maximum is 4 characters)",
      { fields: err("ERR_TOO_LONG", "is too long (maximum is 4 characters)") },
    ],
    [
      { fields_attributes: [{ name: "", value: "orphan" }] },
      "Validation failed: Fields contains values with missing labels",
      { fields: err("ERR_FIELDS_WITH_VALUES_MISSING_LABELS", "contains values with missing labels") },
    ],
    [
      { attribution_domains: ["not a domain"] },
      "Validation failed: Attribution domains not a domain is not a valid domain name",
      { attribution_domains: err("ERR_INVALID", "not a domain is not a valid domain name") },
    ],
    [
      { attribution_domains: Array.from({ length: 11 }, (_, i) => `d${i}.example`) },
      "Validation failed: Attribution domains is too long (maximum is 10 characters)",
      { attribution_domains: err("ERR_TOO_LONG", "is too long (maximum is 10 characters)") },
    ],
  ];
  for (const [json, error, details] of cases) {
    const res = await update(bob, json);
    assert.equal(res.status, 422, JSON.stringify(json).slice(0, 60));
    assert.deepEqual(res.body, { error, details });
  }
  const both = await update(bob, { display_name: "x".repeat(31), note: "y".repeat(501) });
  assert.deepEqual(Object.keys(both.body.details), ["display_name", "note"], "every problem at once");
  const unchanged = await server.get("/api/v1/accounts/verify_credentials", { token: bob.token });
  assert.equal(unchanged.body.display_name, "", "nothing of a refused update was saved");

  const long = `${"word ".repeat(80)}https://example.com/${"x".repeat(300)}`;
  assert.equal((await update(bob, { note: long })).status, 200, "a URL counts as 23");
  assert.equal((await update(bob, { display_name: "🐦".repeat(30) })).status, 200);
  const truncated = await update(bob, { fields_attributes: [{ name: "n".repeat(300), value: "v".repeat(256) }] });
  assert.equal(truncated.status, 200);
  assert.deepEqual(
    [truncated.body.source.fields[0].name.length, truncated.body.source.fields[0].value.length],
    [255, 255],
    "names and values keep their first 255 characters, as Mastodon keeps them",
  );
});

test("avatar by multipart upload and header by data: URI, resized and served", async () => {
  const form = new FormData();
  form.append("avatar", new Blob([await png(800, 600)], { type: "image/png" }), "me.png");
  form.append("display_name", "Bob");
  const res = await server.patch("/api/v1/accounts/update_credentials", { token: bob.token, multipart: form });
  assert.equal(res.status, 200);
  const avatarUrl = new URL(res.body.avatar);
  assert.match(avatarUrl.pathname, new RegExp(`^/system/accounts/avatars/${bob.accountId}/[\\w-]{16}\\.png$`));
  assert.equal(res.body.avatar_static, res.body.avatar);
  assert.equal(res.body.display_name, "Bob");
  const image = await fetch(res.body.avatar);
  assert.equal(image.status, 200);
  assert.equal(image.headers.get("content-type"), "image/png");
  assert.equal(image.headers.get("cache-control"), "public, max-age=31536000, immutable");
  const meta = await sharp(Buffer.from(await image.arrayBuffer())).metadata();
  assert.deepEqual([meta.width, meta.height], [400, 400]);

  const jpeg = await sharp(await png(3000, 1000))
    .jpeg()
    .toBuffer();
  const header = `data:image/jpeg;base64,${jpeg.toString("base64")}`;
  const withHeader = await update(bob, { header });
  assert.equal(withHeader.status, 200);
  assert.match(withHeader.body.header, /\/system\/accounts\/headers\/\d+\/[\w-]+\.jpg$/);
  assert.equal(withHeader.body.header_static, withHeader.body.header);
  const headerImage = await fetch(withHeader.body.header);
  assert.equal(headerImage.headers.get("content-type"), "image/jpeg");
  const headerMeta = await sharp(Buffer.from(await headerImage.arrayBuffer())).metadata();
  assert.deepEqual([headerMeta.width, headerMeta.height], [1500, 500]);
  assert.equal(withHeader.body.avatar, res.body.avatar, "the avatar stays");

  // A new avatar replaces the old file.
  const again = new FormData();
  again.append("avatar", new Blob([await png(100, 100)], { type: "image/png" }), "again.png");
  const replaced = await server.patch("/api/v1/accounts/update_credentials", { token: bob.token, multipart: again });
  assert.notEqual(replaced.body.avatar, res.body.avatar);
  assert.equal((await fetch(res.body.avatar)).status, 404);
  const small = await sharp(Buffer.from(await (await fetch(replaced.body.avatar)).arrayBuffer())).metadata();
  assert.deepEqual([small.width, small.height], [100, 100], "small images are not enlarged");

  const removed = await server.delete("/api/v1/profile/avatar", { token: bob.token });
  assert.equal(removed.status, 200);
  assert.equal(removed.body.avatar, `${server.url}/avatars/original/missing.png`);
  assert.equal((await fetch(replaced.body.avatar)).status, 404);
  const noHeader = await server.delete("/api/v1/profile/header", { token: bob.token });
  assert.equal(noHeader.body.header, `${server.url}/headers/original/missing.png`);
  assert.equal((await fetch(withHeader.body.header)).status, 404);
});

test("an animated GIF keeps a still for avatar_static and header_static", async () => {
  const form = new FormData();
  form.append("avatar", new Blob([await animatedGif(50, 100)], { type: "image/gif" }), "a.gif");
  form.append("header", new Blob([await animatedGif(300, 100)], { type: "image/gif" }), "h.gif");
  const res = await server.patch("/api/v1/accounts/update_credentials", { token: alice.token, multipart: form });
  assert.equal(res.status, 200);
  assert.match(res.body.avatar, /\.gif$/);
  assert.match(res.body.avatar_static, /\.still\.png$/);
  assert.match(res.body.header, /\.gif$/);
  assert.match(res.body.header_static, /\.still\.png$/);
  const gif = await fetch(res.body.avatar);
  assert.equal(gif.headers.get("content-type"), "image/gif");
  assert.equal((await sharp(Buffer.from(await gif.arrayBuffer())).metadata()).pages, 2, "still animated");
  const still = await fetch(res.body.avatar_static);
  assert.equal(still.headers.get("content-type"), "image/png");
  // Removing the avatar removes its still too.
  await server.delete("/api/v1/profile/avatar", { token: alice.token });
  assert.equal((await fetch(res.body.avatar_static)).status, 404);
});

test("what is not an image, or too large, is refused with nothing saved", async () => {
  const bad = new FormData();
  bad.append("avatar", new Blob(["not an image"], { type: "image/png" }), "x.png");
  bad.append("display_name", "Changed");
  const refused = await server.patch("/api/v1/accounts/update_credentials", { token: alice.token, multipart: bad });
  assert.equal(refused.status, 422);
  assert.deepEqual(refused.body, {
    error: "Validation failed: Avatar content type is invalid, Avatar is invalid",
    details: {
      avatar_content_type: [{ error: "ERR_INVALID", description: "is invalid" }],
      avatar: [{ error: "ERR_INVALID", description: "is invalid" }],
    },
  });
  const svg = new FormData();
  svg.append("header", new Blob(['<svg xmlns="http://www.w3.org/2000/svg"/>'], { type: "image/svg+xml" }), "x.svg");
  const noSvg = await server.patch("/api/v1/accounts/update_credentials", { token: alice.token, multipart: svg });
  assert.equal(noSvg.status, 422);
  assert.equal(noSvg.body.error, "Validation failed: Header content type is invalid, Header is invalid");

  const huge = new FormData();
  huge.append("avatar", new Blob([Buffer.alloc(8 * 1024 * 1024)], { type: "image/png" }), "huge.png");
  const tooBig = await server.patch("/api/v1/accounts/update_credentials", { token: alice.token, multipart: huge });
  assert.equal(tooBig.status, 422);
  assert.equal(
    tooBig.body.error,
    "Validation failed: Avatar file size must be less than 8 MB, Avatar must be less than 8 MB",
  );

  const notAFile = await update(alice, { avatar: "https://example.com/me.png" });
  assert.equal(notAFile.status, 422);
  const me = await server.get("/api/v1/accounts/verify_credentials", { token: alice.token });
  assert.notEqual(me.body.display_name, "Changed");
});

test("verify_credentials and update_credentials: scopes and who may call", async () => {
  const reader = await server.user("reader", { scopes: ["read"] });
  const denied = await server.patch("/api/v1/accounts/update_credentials", {
    token: reader.token,
    json: { note: "x" },
  });
  assert.equal(denied.status, 403);
  assert.deepEqual(denied.body, { error: "This action is outside the authorized scopes" });
  const profileOnly = await server.user("prof", { scopes: ["profile"] });
  assert.equal((await server.get("/api/v1/accounts/verify_credentials", { token: profileOnly.token })).status, 200);
  const granular = await server.user("granular", { scopes: ["read:accounts", "write:accounts"] });
  assert.equal((await update(granular, { note: "fine" })).status, 200);
  assert.equal((await server.get("/api/v1/accounts/verify_credentials")).status, 401);

  const disabled = await server.user("off");
  await server.rt.db.updateTable("users").set({ disabled: true }).where("id", "=", disabled.userId).execute();
  const off = await server.get("/api/v1/accounts/verify_credentials", { token: disabled.token });
  assert.deepEqual([off.status, off.body], [403, { error: "Your login is currently disabled" }]);
  const lax = await server.get("/api/v1/accounts/verify_credentials", {
    token: disabled.token,
    query: { allow_nonfunctional: "true" },
  });
  assert.equal(lax.status, 200);
  assert.equal((await update(disabled, { note: "x" })).status, 403, "changing the profile needs an active user");

  const gone = await server.user("gone");
  await setAccount(server, gone.accountId, { suspended_at: new Date() });
  const suspended = await server.get("/api/v1/accounts/verify_credentials", {
    token: gone.token,
    query: { allow_nonfunctional: "true" },
  });
  assert.deepEqual([suspended.status, suspended.body], [403, { error: "Your login is currently disabled" }]);
});
