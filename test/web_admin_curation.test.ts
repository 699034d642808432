// The web admin's hashtag, trend and custom emoji pages through HTTP: who may open them, what their
// filters find, the refusals of bad input, and the effect of each form on what the API answers.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import sharp from "sharp";
import { newId } from "../src/domain/ids.ts";
import { type Browser, formFields, signInToAdmin, submit } from "./browser.ts";
import { insertStatus, post, remoteAccount, setAccount } from "./fixtures.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let ann: TestUser;
let ben: TestUser;
let api: TestUser;

before(async () => {
  server = await startServer({ env: { ALLOW_PRIVATE_ADDRESSES: "true" } });
  await server.user("plain");
  await server.user("mod", { role: "moderator" });
  await server.user("boss", { role: "admin" });
  api = await server.user("adminapi", { role: "admin", scopes: ["read", "admin:read"] });
  ann = await server.user("ann");
  ben = await server.user("ben");
  for (const u of [ann, ben]) await setAccount(server, u.accountId, { discoverable: true });
});
after(() => server.close());

const signedIn = (username: string) => signInToAdmin(server, username);

const square = (format: "png" | "gif" | "webp", size = 64) =>
  sharp({ create: { width: size, height: size, channels: 4, background: { r: 20, g: 130, b: 90, alpha: 1 } } })
    .toFormat(format)
    .toBuffer();

/** The CSRF token (and language) every form of the emoji page carries. */
const token = async (browser: Browser) =>
  formFields((await browser.get("/admin/custom_emojis")).text, "/auth/sign_out");

/** Posts the upload form of the emoji page as a browser does: multipart, with the page's CSRF token. */
async function upload(browser: Browser, fields: Record<string, string>, file: { bytes: Buffer; name: string }) {
  const form = new FormData();
  for (const [k, v] of Object.entries({ ...(await token(browser)), ...fields })) {
    form.set(k, v);
  }
  form.set("image", new Blob([new Uint8Array(file.bytes)]), file.name);
  const cookie = [...browser.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  return server.request("POST", "/admin/custom_emojis", { headers: { cookie }, multipart: form });
}

const emojis = async () =>
  (await server.get("/api/v1/custom_emojis")).body.map((e: any) => [e.shortcode, e.visible_in_picker, e.category]);

test("each page needs its role permission", async () => {
  const plain = await signedIn("plain");
  for (const path of ["/admin/tags", "/admin/trends/tags", "/admin/trends/links/publishers", "/admin/custom_emojis"]) {
    const res = await plain.get(path);
    assert.equal(res.status, 403, path);
    assert.match(res.text, /Your role does not allow you to see this page/);
  }
  const mod = await signedIn("mod");
  const tags = await mod.get("/admin/tags");
  assert.equal(tags.status, 200);
  assert.match(tags.text, /href="\/admin\/trends\/tags"/);
  assert.doesNotMatch(tags.text, /href="\/admin\/custom_emojis"/, "moderators do not manage custom emojis");
  assert.equal((await mod.get("/admin/custom_emojis")).status, 403);
  const refused = await mod.post("/admin/custom_emojis/123/disable", formFields(tags.text, "/auth/sign_out"));
  assert.equal(refused.status, 403);
  const boss = await signedIn("boss");
  assert.match((await boss.get("/admin/tags")).text, /href="\/admin\/custom_emojis"/);
});

test("hashtags: found by name and review, with the week's use; the tag page sets what the API shows", async () => {
  await post(server, ann, "#Birding at dawn");
  await post(server, ben, "#birding at noon, #cooking tonight");
  const mod = await signedIn("mod");
  const list = await mod.get("/admin/tags?name=%23bir");
  assert.equal(list.status, 200);
  const rows = [
    ...list.text.matchAll(/<tr><td><a href="\/admin\/tags\/(\d+)">#(\w+)<\/a><\/td><td>(\d+)<\/td><td>(\d+)<\/td>/g),
  ];
  assert.deepEqual(
    rows.map((m) => m.slice(2)),
    [["Birding", "2", "2"]],
  );
  const birding = rows[0]![1]!;
  assert.match((await mod.get("/admin/tags?status=unreviewed")).text, /#cooking/);

  const path = `/admin/tags/${birding}`;
  const page = await mod.get(path);
  assert.match(page.text, /Pending review/);
  // A browser sends no field for an unticked box.
  const fields = formFields(page.text, path);
  delete fields.listable;
  const res = await mod.post(path, { ...fields, display_name: "BirDing", trendable: "1", usable: "1" });
  assert.equal(res.status, 303);
  assert.equal(res.headers.get("location"), `${path}?saved=1`);
  const tag = (await server.get(`/api/v1/admin/tags/${birding}`, { token: api.token })).body;
  assert.deepEqual(
    [tag.name, tag.trendable, tag.usable, tag.listable, tag.requires_review],
    ["BirDing", true, true, false, false],
  );
  assert.match((await mod.get(path)).text, /Reviewed on \d{4}-\d\d-\d\d/);
  const reviewed = (await mod.get("/admin/tags?status=reviewed")).text;
  assert.match(reviewed, /#BirDing/);
  assert.doesNotMatch(reviewed, /#cooking/);
  assert.equal((await mod.get("/admin/tags/12345")).status, 404);
  assert.equal((await mod.get("/admin/tags/nope")).status, 404);
  const log = (await mod.get("/admin/audit_log")).text;
  assert.ok(log.includes("<code>update</code></td><td>Tag birding"));
});

test("trends: hashtags and posts approved or rejected from the review pages", async () => {
  await post(server, ann, "#gardening is back");
  await post(server, ben, "#gardening for everyone");
  const mod = await signedIn("mod");
  const page = await mod.get("/admin/trends/tags");
  const gardening = /href="\/admin\/tags\/(\d+)">#gardening/.exec(page.text)?.[1];
  assert.ok(gardening, "the tag waits for review");
  const trends = () => server.get("/api/v1/trends/tags").then((r) => r.body.map((t: any) => t.name));
  assert.ok(!(await trends()).includes("gardening"));
  const approve = `/admin/trends/tags/${gardening}/approve`;
  const approved = await mod.post(approve, formFields(page.text, approve));
  assert.equal(approved.status, 303);
  assert.equal(approved.headers.get("location"), "/admin/trends/tags?saved=1");
  assert.ok((await trends()).includes("gardening"));
  const reject = `/admin/trends/tags/${gardening}/reject`;
  assert.equal((await mod.post(reject, formFields(page.text, reject))).status, 303);
  assert.ok(!(await trends()).includes("gardening"));
  assert.equal((await mod.post("/admin/trends/tags/999/approve", formFields(page.text, approve))).status, 404);

  const hot = (await post(server, ann, "a hot take on birds")).id;
  await server.post(`/api/v1/statuses/${hot}/favourite`, { token: ben.token });
  const statuses = await mod.get("/admin/trends/statuses");
  assert.match(statuses.text, /a hot take on birds/);
  assert.match(statuses.text, /Not reviewed/);
  const status = () => server.get("/api/v1/trends/statuses").then((r) => r.body.map((s: any) => s.id));
  assert.deepEqual(await status(), [hot]);
  assert.equal((await submit(mod, "/admin/trends/statuses", `/admin/trends/statuses/${hot}/reject`)).status, 303);
  assert.deepEqual(await status(), []);
  assert.match((await mod.get("/admin/trends/statuses")).text, /Rejected/, "rejected posts stay on the review page");
  assert.equal((await submit(mod, "/admin/trends/statuses", `/admin/trends/statuses/${hot}/approve`)).status, 303);
  assert.deepEqual(await status(), [hot]);
});

test("trends: links and their publishers approved from the review pages", async () => {
  const shared = (await post(server, ann, "read https://news.example/story")).id;
  const now = new Date();
  const card = newId();
  await server.rt.db
    .insertInto("preview_cards")
    .values({
      id: card,
      url: "https://news.example/story",
      title: "A story about birds",
      provider_name: "News",
      stale_at: new Date(now.getTime() + 86_400_000),
      created_at: now,
      updated_at: now,
    })
    .execute();
  await server.rt.db
    .insertInto("preview_cards_statuses")
    .values({ status_id: shared, preview_card_id: card, url: "https://news.example/story" })
    .execute();
  const provider = newId();
  await server.rt.db
    .insertInto("preview_card_providers")
    .values({ id: provider, domain: "news.example", created_at: now, updated_at: now })
    .execute();

  const mod = await signedIn("mod");
  const links = await mod.get("/admin/trends/links");
  assert.match(links.text, /A story about birds/);
  assert.match(links.text, /Pending review/);
  const trending = () => server.get("/api/v1/trends/links").then((r) => r.body.map((l: any) => l.url));
  assert.deepEqual(await trending(), []);
  const publishers = await mod.get("/admin/trends/links/publishers");
  assert.match(publishers.text, /<td>news\.example<\/td><td>Pending review<\/td>/);
  const approve = `/admin/trends/links/publishers/${provider}/approve`;
  assert.equal((await mod.post(approve, formFields(publishers.text, approve))).status, 303);
  assert.deepEqual(await trending(), ["https://news.example/story"], "the publisher's cards trend");
  const listed = (await server.get("/api/v1/admin/trends/links/publishers", { token: api.token })).body;
  assert.deepEqual(
    listed.map((p: any) => [p.domain, p.trendable, p.requires_review]),
    [["news.example", true, false]],
  );
  assert.equal((await submit(mod, "/admin/trends/links", `/admin/trends/links/${card}/reject`)).status, 303);
  assert.deepEqual(await trending(), [], "a card rejected itself stays out");
  assert.doesNotMatch((await mod.get("/admin/trends/links")).text, /A story about birds/);
});

test("custom emojis: uploads are checked as `rookery emoji add` checks them; each change shows in the API", async () => {
  const boss = await signedIn("boss");
  const added = await upload(
    boss,
    { shortcode: "parrot", category: "Birds" },
    { bytes: await square("png"), name: "p.png" },
  );
  assert.equal(added.status, 303, added.text);
  assert.deepEqual(await emojis(), [["parrot", true, "Birds"]]);

  for (const [fields, file, message] of [
    [{ shortcode: "parrot" }, { bytes: await square("gif"), name: "p.gif" }, /Shortcode has already been taken/],
    [{ shortcode: "x" }, { bytes: await square("gif"), name: "x.gif" }, /Shortcode must be at least 2 characters/],
    [{ shortcode: "texty" }, { bytes: Buffer.from("not an image"), name: "t.png" }, /Image is not an image/],
    [{ shortcode: "jpeg" }, { bytes: await square("jpeg" as "png"), name: "j.jpg" }, /must be a PNG, GIF or WebP/],
    [{ shortcode: "huge" }, { bytes: Buffer.alloc(300 * 1024, 1), name: "h.png" }, /at most 256 KB/],
  ] as const) {
    const res = await upload(boss, fields, file);
    assert.equal(res.status, 422, fields.shortcode);
    assert.match(res.text, message);
  }
  const missing = await boss.post("/admin/custom_emojis", { ...(await token(boss)), shortcode: "nofile" });
  assert.equal(missing.status, 422);
  assert.match(missing.text, /Image can(&#39;|')t be blank/);
  assert.deepEqual(await emojis(), [["parrot", true, "Birds"]]);

  const { id } = await server.rt.db
    .selectFrom("custom_emojis")
    .select("id")
    .where("shortcode", "=", "parrot")
    .executeTakeFirstOrThrow();
  const path = "/admin/custom_emojis";
  assert.equal((await submit(boss, path, `${path}/${id}/category`, { category: "  Parrots " })).status, 303);
  assert.equal((await submit(boss, path, `${path}/${id}/unlist`)).status, 303);
  assert.deepEqual(await emojis(), [["parrot", false, "Parrots"]]);
  assert.equal((await submit(boss, path, `${path}/${id}/disable`)).status, 303);
  assert.deepEqual(await emojis(), []);
  assert.match((await boss.get(path)).text, /Disabled/);
  assert.equal((await submit(boss, path, `${path}/${id}/enable`)).status, 303);
  assert.equal((await submit(boss, path, `${path}/${id}/list`)).status, 303);
  assert.deepEqual(await emojis(), [["parrot", true, "Parrots"]]);
  assert.match((await boss.get(`${path}?shortcode=PARR`)).text, /:parrot:/);
  assert.doesNotMatch((await boss.get(`${path}?shortcode=owl`)).text, /:parrot:/);

  // Another server's emoji, whose image is this server's parrot.
  const url = (await server.get("/api/v1/custom_emojis")).body[0].url;
  const remote = newId();
  const now = new Date();
  await server.rt.db
    .insertInto("remote_emojis")
    .values({
      id: remote,
      domain: "birds.example",
      shortcode: "kea",
      uri: null,
      image_url: url,
      created_at: now,
      updated_at: now,
    })
    .execute();
  const remotePage = await boss.get(`${path}?origin=remote&domain=birds`);
  assert.match(remotePage.text, /:kea:/);
  assert.doesNotMatch((await boss.get(`${path}?origin=remote&domain=other`)).text, /:kea:/);
  const bird = await remoteAccount(server, "keeper", "birds.example");
  const status = await insertStatus(server, bird, { local: false, content: "<p>Look :kea:</p>" });
  const shown = async () =>
    (await server.get(`/api/v1/statuses/${status}`, { token: ann.token })).body.emojis.map((e: any) => e.shortcode);
  assert.deepEqual(await shown(), ["kea"]);
  const here = "?origin=remote";
  const disabled = await boss.post(
    `${path}/${remote}/disable${here}`,
    formFields(remotePage.text, `${path}/${remote}/disable${here}`),
  );
  assert.equal(disabled.headers.get("location"), `${path}?origin=remote&saved=1`);
  const row = await server.rt.db
    .selectFrom("remote_emojis")
    .select("disabled")
    .where("id", "=", remote)
    .executeTakeFirstOrThrow();
  assert.equal(Boolean(row.disabled), true);
  assert.deepEqual(await shown(), [], "a disabled emoji shows as its shortcode");
  const unlisting = await boss.post(
    `${path}/${remote}/unlist${here}`,
    formFields(remotePage.text, `${path}/${remote}/disable${here}`),
  );
  assert.equal(unlisting.status, 422, "another server's emoji has no place in the picker");
  const copied = await boss.post(
    `${path}/${remote}/copy${here}`,
    formFields(remotePage.text, `${path}/${remote}/copy${here}`),
  );
  assert.equal(copied.status, 303, copied.text);
  assert.deepEqual(await emojis(), [
    ["kea", true, null],
    ["parrot", true, "Parrots"],
  ]);
  assert.equal(
    (await boss.post(`${path}/${remote}/delete${here}`, formFields(remotePage.text, `${path}/${remote}/delete${here}`)))
      .status,
    303,
  );
  assert.equal((await server.rt.db.selectFrom("remote_emojis").select("id").execute()).length, 0);
  assert.equal((await submit(boss, path, `${path}/${id}/delete`)).status, 303);
  assert.deepEqual(await emojis(), [["kea", true, null]]);
  assert.equal((await boss.post(`${path}/${id}/delete`, await token(boss))).status, 404);
  assert.equal((await boss.post(`${path}/nope/disable`, await token(boss))).status, 404);

  const log = (await boss.get("/admin/audit_log")).text;
  const entries = [...log.matchAll(/<td><code>(\w+)<\/code><\/td><td>CustomEmoji ([^<]*)<\/td>/g)].map(
    (m) => `${m[1]} ${m[2]}`,
  );
  assert.deepEqual(entries.slice(0, 4), [
    "destroy :parrot:",
    "destroy :kea@birds.example:",
    "copy :kea@birds.example:",
    "disable :kea@birds.example:",
  ]);
  assert.ok(entries.includes("create :parrot:"));
});
