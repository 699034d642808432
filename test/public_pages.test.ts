// The public HTML pages of accounts and posts: what an anonymous reader sees, escaped, paginated,
// and 404/410 pages for what is missing or suspended.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { freshUser, insertStatus, post, remoteAccount, setAccount } from "./fixtures.ts";
import { blob, form, photo } from "./media_files.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let alice: TestUser;
let bob: TestUser;
const ids: Record<string, string> = {};

before(async () => {
  server = await startServer();
  alice = await server.user("alice");
  bob = await server.user("bob");
  const profile = await server.patch("/api/v1/accounts/update_credentials", {
    token: alice.token,
    json: {
      display_name: `<script>x</script> Al & "ice"`,
      note: "Bird <b>watcher</b>",
      fields_attributes: [{ name: "<i>Site</i>", value: "https://alice.example" }],
    },
  });
  assert.equal(profile.status, 200, profile.text);
  ids.root = (await post(server, bob, "bob asks <a question>")).id;
  ids.reply = (await post(server, alice, { status: "@bob a public answer", in_reply_to_id: ids.root })).id;
  ids.hiddenReply = (
    await post(server, alice, { status: "a secret answer", in_reply_to_id: ids.root, visibility: "private" })
  ).id;
  ids.public = (await post(server, alice, "hello from the public page #Birds")).id;
  ids.unlisted = (await post(server, alice, { status: "quietly listed", visibility: "unlisted" })).id;
  ids.private = (await post(server, alice, { status: "for followers only", visibility: "private" })).id;
  ids.direct = (await post(server, alice, { status: "@bob just for you", visibility: "direct" })).id;
  ids.cw = (await post(server, alice, { status: "the spoiled ending", spoiler_text: "Film <spoilers>" })).id;
  ids.boost = (await server.post(`/api/v1/statuses/${ids.root}/reblog`, { token: alice.token })).body.id;
});
after(() => server.close());

const page = (path: string, headers: Record<string, string> = {}) => server.get(path, { headers });

test("a profile shows the account, escaped, and its public and unlisted posts only", async () => {
  const res = await page("/@alice");
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
  const body = res.text;
  assert.ok(body.includes("&lt;script&gt;x&lt;/script&gt; Al &amp; &quot;ice&quot;"), "the display name is escaped");
  assert.ok(!body.includes("<script>x"), "no script gets through");
  assert.ok(body.includes("Bird &lt;b&gt;watcher&lt;/b&gt;"), "the bio's markup was text, rendered as text");
  assert.ok(body.includes("<dt>&lt;i&gt;Site&lt;/i&gt;</dt>"));
  assert.ok(body.includes("<dd>https://alice.example</dd>"));
  assert.ok(body.includes("@alice</p>"));
  assert.match(body, /Posts: <strong>8<\/strong>/);
  assert.ok(body.includes("hello from the public page"));
  assert.ok(body.includes("quietly listed"));
  assert.ok(!body.includes("for followers only"));
  assert.ok(!body.includes("just for you"));
  assert.ok(!body.includes("a public answer"), "replies to others stay on their threads");
  assert.ok(body.includes(`Al &amp; &quot;ice&quot; boosted`), "boosts show");
  assert.ok(body.includes("bob asks &lt;a question&gt;"));
  assert.ok(body.includes(`<details><summary>Film &lt;spoilers&gt;</summary>`));
  assert.ok(
    body.includes(`<link rel="alternate" type="application/activity+json" href="${server.url}/users/alice">`),
    "the actor is linked",
  );
});

test("the post page shows the thread as the public may see it", async () => {
  const res = await page(`/@alice/${ids.reply}`);
  assert.equal(res.status, 200);
  const body = res.text;
  assert.ok(body.includes("bob asks &lt;a question&gt;"), "the parent is shown");
  assert.ok(body.includes("a public answer"));
  assert.ok(!body.includes("a secret answer"));
  assert.ok(body.includes(`class="status h-entry focus" id="status-${ids.reply}"`));
  assert.ok(
    body.includes(
      `<link rel="alternate" type="application/activity+json" href="${server.url}/users/alice/statuses/${ids.reply}">`,
    ),
  );
  const root = await page(`/@bob/${ids.root}`);
  assert.equal(root.status, 200);
  assert.ok(root.text.includes("a public answer"), "replies below the post");
  assert.ok(!root.text.includes("a secret answer"));
});

test("private, direct, deleted and misplaced posts are not found; boosts lead to the original", async () => {
  for (const path of [
    `/@alice/${ids.private}`,
    `/@alice/${ids.direct}`,
    `/@bob/${ids.public}`,
    `/@alice/123456789012345678`,
    `/@alice/not-an-id`,
    `/@nobody/${ids.public}`,
  ]) {
    const res = await page(path);
    assert.equal(res.status, 404, path);
    assert.match(res.headers.get("content-type") ?? "", /^text\/html/, path);
    assert.ok(res.text.includes("This page does not exist."), path);
  }
  const gone = (await post(server, alice, "soon gone")).id;
  assert.equal((await page(`/@alice/${gone}`)).status, 200);
  assert.equal((await server.delete(`/api/v1/statuses/${gone}`, { token: alice.token })).status, 200);
  assert.equal((await page(`/@alice/${gone}`)).status, 404);

  const boost = await server.get(`/@alice/${ids.boost}`);
  assert.equal(boost.status, 302);
  assert.equal(boost.headers.get("location"), `${server.url}/@bob/${ids.root}`);
});

test("unknown, pending and remote accounts are 404, suspended ones 410", async () => {
  assert.equal((await page("/@nobody")).status, 404);
  assert.equal((await page(`/@bob@elsewhere.example`)).status, 404);
  const host = new URL(server.url).host;
  assert.equal((await page(`/@bob@${host}`)).status, 200, "our own domain names local accounts");
  await remoteAccount(server, "remy", "remote.example");
  assert.equal((await page("/@remy@remote.example")).status, 404);
  const pending = await freshUser(server, "pending");
  await server.rt.db.updateTable("users").set({ approved: false }).where("id", "=", pending.userId).execute();
  assert.equal((await page(`/@${pending.username}`)).status, 404);
  const eve = await freshUser(server, "eve");
  const eves = (await post(server, eve, "before the suspension")).id;
  await setAccount(server, eve.accountId, { suspended_at: new Date() });
  const res = await page(`/@${eve.username}`);
  assert.equal(res.status, 410);
  assert.ok(res.text.includes("This account has been suspended."));
  assert.ok(!res.text.includes("before the suspension"));
  assert.equal((await page(`/@${eve.username}/${eves}`)).status, 410);
});

test("older and newer pages by max_id and min_id", async () => {
  const carol = await freshUser(server, "carol");
  const made: string[] = [];
  for (let i = 0; i < 23; i++) made.push((await post(server, carol, `numbered post ${i}.`)).id);
  const first = await page(`/@${carol.username}`);
  const shown = (text: string) => [...text.matchAll(/numbered post (\d+)\./g)].map((m) => Number(m[1]));
  assert.deepEqual(shown(first.text), [22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3]);
  assert.ok(!first.text.includes('rel="prev"'), "the first page has no newer page");
  const older = /<a rel="next" href="([^"]+)">Older posts<\/a>/.exec(first.text);
  assert.ok(older);
  assert.equal(older[1], `/@${carol.username}?max_id=${made[3]}`);
  const second = await page(older[1]);
  assert.deepEqual(shown(second.text), [2, 1, 0]);
  assert.ok(!second.text.includes('rel="next"'));
  const newer = /<a rel="prev" href="([^"]+)">Newer posts<\/a>/.exec(second.text);
  assert.ok(newer);
  assert.deepEqual(shown((await page(newer[1])).text).slice(0, 2), [22, 21]);
  assert.equal((await page(`/@${carol.username}?max_id=garbage`)).status, 200);
});

test("remote links that are not http(s) are not followed; pages speak the reader's language", async () => {
  const evil = await remoteAccount(server, "mallory", "remote.example", { url: "javascript:alert(1)" });
  const replyId = await insertStatus(server, evil, { local: false, content: "<p>a remote reply</p>" });
  await server.rt.db
    .updateTable("statuses")
    .set({ in_reply_to_id: ids.public, in_reply_to_account_id: alice.accountId, url: "javascript:alert(2)" })
    .where("id", "=", replyId)
    .execute();
  const res = await page(`/@alice/${ids.public}`);
  assert.ok(res.text.includes("a remote reply"));
  assert.ok(!res.text.includes("javascript:"), "no javascript: link");
  const german = await page("/@alice", { "accept-language": "de-DE,de;q=0.9" });
  assert.ok(german.text.includes('<html lang="de">'));
  assert.ok(german.text.includes("Beiträge"));
  assert.ok((await page("/@alice?lang=fr")).text.includes("Abonnés"));
});

test("the same URLs answer ActivityStreams to servers and HTML to browsers", async () => {
  for (const accept of [
    "application/activity+json",
    'application/ld+json; profile="https://www.w3.org/ns/activitystreams"',
  ]) {
    const actor = await page("/@alice", { accept });
    assert.equal(actor.status, 200, accept);
    assert.match(actor.headers.get("content-type") ?? "", /application\/(activity|ld)\+json/, accept);
    const body = JSON.parse(actor.text);
    assert.deepEqual([body.id, body.type], [`${server.url}/users/alice`, "Person"]);
    const note = JSON.parse((await page(`/@alice/${ids.public}`, { accept })).text);
    assert.deepEqual([note.id, note.type], [`${server.url}/users/alice/statuses/${ids.public}`, "Note"]);
  }
  const browser = await page("/@alice", { accept: "text/html,application/xhtml+xml,*/*;q=0.8" });
  assert.match(browser.headers.get("content-type") ?? "", /^text\/html/);
  const actorUrl = await server.get("/users/alice", { headers: { accept: "text/html" } });
  assert.deepEqual([actorUrl.status, actorUrl.headers.get("location")], [302, "/@alice"]);
  const statusUrl = await server.get(`/users/alice/statuses/${ids.public}`, { headers: { accept: "text/html" } });
  assert.deepEqual([statusUrl.status, statusUrl.headers.get("location")], [302, `/@alice/${ids.public}`]);
});

test("oEmbed: Mastodon's rich document of a public post, linked from its page; private or unknown is 404", async () => {
  const pageUrl = `${server.url}/@alice/${ids.public}`;
  const res = await server.get("/api/oembed", { query: { url: pageUrl } });
  assert.equal(res.status, 200, res.text);
  const embedUrl = `${server.url}/@alice/${ids.public}/embed`;
  assert.deepEqual(res.body, {
    type: "rich",
    version: "1.0",
    author_name: `<script>x</script> Al & "ice"`,
    author_url: `${server.url}/@alice`,
    provider_name: new URL(server.url).host,
    provider_url: `${server.url}/`,
    cache_age: 86400,
    html: `<iframe src="${embedUrl}" class="mastodon-embed" style="max-width: 100%; border: 0" width="400" allowfullscreen="allowfullscreen"></iframe>`,
    width: 400,
    height: null,
  });
  // Sized by maxwidth and maxheight; found by the post's ActivityPub id as well.
  const sized = await server.get("/api/oembed", {
    query: { url: `${server.url}/users/alice/statuses/${ids.unlisted}`, maxwidth: "300", maxheight: "200" },
  });
  assert.deepEqual([sized.status, sized.body.width, sized.body.height], [200, 300, 200]);
  assert.match(sized.body.html, / width="300" height="200" /);
  for (const url of [
    `${server.url}/@alice/${ids.private}`,
    `${server.url}/@alice/${ids.direct}`,
    `${server.url}/@alice/${ids.boost}`,
    `${server.url}/@bob/${ids.public}`,
    `${server.url}/@alice/123456789`,
    `${server.url}/@alice/9223372036854775808`,
    `https://elsewhere.example/@alice/${ids.public}`,
    "not a url",
  ]) {
    const missing = await server.get("/api/oembed", { query: { url } });
    assert.deepEqual([missing.status, missing.body], [404, { error: "Record not found" }], url);
  }
  assert.equal((await server.get("/api/oembed")).status, 404);

  // The post's page links the document; the embed page shows the post alone.
  const html = (await page(`/@alice/${ids.public}`)).text;
  const oembedHref = `${server.url}/api/oembed?format=json&amp;url=${encodeURIComponent(pageUrl)}`;
  assert.ok(html.includes(`<link rel="alternate" type="application/json+oembed" href="${oembedHref}">`), html);
  const embed = await page(`/@alice/${ids.public}/embed`);
  assert.equal(embed.status, 200);
  assert.match(embed.text, /hello from the public page/);
  assert.equal(embed.headers.get("x-frame-options"), null);
  assert.equal((await page(`/@alice/${ids.private}/embed`)).status, 404);
  assert.equal((await page(`/@bob/${ids.public}/embed`)).status, 404);
});

/** The `content` of a page's `<meta property|name="…">`. */
const meta = (text: string, name: string) =>
  new RegExp(`<meta (?:property|name)="${name}" content="([^"]*)">`).exec(text)?.[1];

test("a post's title is its plain text; profiles and posts carry link previews", async () => {
  const dave = await freshUser(server, "dave");
  const tagged = (await post(server, dave, "#Wildlife spotted: a heron & <two> egrets")).id;
  const res = await page(`/@${dave.username}/${tagged}`);
  const title = /<title>([^<]*)<\/title>/.exec(res.text)?.[1];
  assert.equal(
    title,
    `${dave.username}: &quot;#Wildlife spotted: a heron &amp; &lt;two&gt; egrets&quot; · 127.0.0.1:${new URL(server.url).port}`,
  );
  assert.equal(meta(res.text, "og:type"), "article");
  assert.equal(meta(res.text, "og:title"), `${dave.username} (@${dave.username}@${new URL(server.url).host})`);
  assert.equal(meta(res.text, "og:description"), "#Wildlife spotted: a heron &amp; &lt;two&gt; egrets");
  assert.equal(meta(res.text, "og:url"), `${server.url}/@${dave.username}/${tagged}`);
  assert.equal(meta(res.text, "og:image"), `${server.url}/avatars/original/missing.png`, "no picture: the avatar");
  assert.equal(meta(res.text, "twitter:card"), "summary");

  const upload = await server.post("/api/v2/media", {
    token: dave.token,
    multipart: form({ file: blob(await photo(320, 200), "image/jpeg"), description: "a heron" }),
  });
  assert.equal(upload.status, 200, upload.text);
  const pictured = (await post(server, dave, { status: "Look", media_ids: [upload.body.id] })).id;
  const withPicture = (await page(`/@${dave.username}/${pictured}`)).text;
  assert.equal(meta(withPicture, "og:image"), upload.body.url);
  assert.equal(meta(withPicture, "twitter:card"), "summary_large_image");
  const warned = (await post(server, dave, { status: "the ending", spoiler_text: "Film" })).id;
  const behindWarning = (await page(`/@${dave.username}/${warned}`)).text;
  assert.equal(meta(behindWarning, "og:description"), "Content warning: Film");
  assert.ok(!behindWarning.includes('content="the ending"'), "the text behind a warning stays out of previews");

  const profile = (await page("/@alice")).text;
  assert.equal(meta(profile, "og:type"), "profile");
  assert.equal(meta(profile, "og:description"), "Bird &lt;b&gt;watcher&lt;/b&gt;");
  assert.equal(meta(profile, "og:url"), `${server.url}/@alice`);
  assert.equal(meta(profile, "og:image"), `${server.url}/avatars/original/missing.png`);
  assert.equal(meta(profile, "twitter:card"), "summary");
  assert.ok(profile.includes('<link rel="icon" href="/favicon.ico" sizes="any">'));
});

test("/tags/:name shows the hashtag's public posts, with their counts, as its timeline does", async () => {
  const erin = await freshUser(server, "erin");
  const shown = (await post(server, erin, "A #Heron by the river")).id;
  await post(server, erin, { status: "an unlisted #heron", visibility: "unlisted" });
  await post(server, erin, { status: "a private #heron", visibility: "private" });
  assert.equal((await server.post(`/api/v1/statuses/${shown}/favourite`, { token: bob.token })).status, 200);
  assert.equal((await server.post(`/api/v1/statuses/${shown}/reblog`, { token: bob.token })).status, 200);

  // The link every post's hashtag carries.
  const status = await server.get(`/api/v1/statuses/${shown}`);
  const href = /href="([^"]+)" class="mention hashtag"/.exec(status.body.content)?.[1];
  assert.equal(href, `${server.url}/tags/Heron`);
  const res = await page(new URL(href).pathname);
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
  assert.ok(res.text.includes("<h1>#Heron</h1>"));
  assert.ok(res.text.includes("by the river"));
  assert.ok(!res.text.includes("an unlisted"), "unlisted posts stay off hashtag timelines");
  assert.ok(!res.text.includes("a private"));
  assert.ok(res.text.includes("<span>Replies: 0</span><span>Boosts: 1</span><span>Favourites: 1</span>"));
  assert.equal(
    (await server.get("/api/v1/timelines/tag/heron")).body.map((s: { id: string }) => s.id).join(),
    shown,
    "the page and the API agree",
  );
  assert.ok((await page("/tags/Heron", { "accept-language": "de" })).text.includes("Öffentliche Beiträge mit #Heron"));
  assert.ok((await page("/tags/nobodyusedthis")).text.includes("No public posts yet."));
  const malformed = await page("/tags/%25%25");
  assert.equal(malformed.status, 404);
  assert.ok(malformed.text.includes("This page does not exist."));

  const latest = await page("/public/local");
  assert.equal(latest.status, 200);
  assert.ok(latest.text.includes("by the river"));
  assert.ok(!latest.text.includes("a remote reply"), "only this server's posts");
});

test("hashtag and timeline pages are for members only where the timelines are", async () => {
  const modes: Record<string, string>[] = [
    { PUBLIC_PREVIEW: "false" },
    { AUTHORIZED_FETCH: "true" },
    { LIMITED_FEDERATION_MODE: "true" },
  ];
  for (const env of modes) {
    const closed = await startServer({ env });
    try {
      const frank = await closed.user("frank");
      await post(closed, frank, "a #closed post");
      const what = JSON.stringify(env);
      for (const path of ["/tags/closed", "/public/local"]) {
        const res = await closed.get(path);
        assert.equal(res.status, 401, `${what} ${path}`);
        assert.ok(res.text.includes("Members only"), `${what} ${path}`);
        assert.ok(!res.text.includes("a #closed post"));
      }
      assert.equal((await closed.get("/api/v1/timelines/tag/closed")).status >= 400, true, what);
    } finally {
      await closed.close();
    }
  }
});
