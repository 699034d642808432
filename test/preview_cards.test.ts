// Link preview cards: after a status is posted (here, or from another server through the inbox) or
// edited, a job fetches its first link from a site served by this test, reads oEmbed, JSON-LD,
// OpenGraph and Twitter's tags as Mastodon does, stores the picture, and the status shows the card
// everywhere (REST, streaming, search, the public page). One fetch per URL, refreshed when stale;
// no card for links to blocked domains, from servers whose media are rejected, or to private
// addresses unless ALLOW_PRIVATE_ADDRESSES. Then trends of links, their review and timeline.
import assert from "node:assert/strict";
import dns from "node:dns";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import sharp from "sharp";
import { blockDomain } from "../src/services/moderation/domain_blocks.ts";
import { assertEntity } from "./conformance.ts";
import { follow, setAccount } from "./fixtures.ts";
import { type RemoteActor, type RemoteServer, signedPostHeaders, startRemoteServer } from "./remote_actors.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";
import { Socket, subscribed, until, wsUrl } from "./streaming_client.ts";

// Names under example.com resolve to this machine, as a public site's name resolves to its address:
// the fetcher decides by the address it connects to. (The system resolver, replaced for this file.)
const systemLookup = dns.promises.lookup;
dns.promises.lookup = ((host: string, options: dns.LookupAllOptions) =>
  host.endsWith(".example.com")
    ? Promise.resolve([{ address: "127.0.0.1", family: 4 }])
    : systemLookup(host, options)) as typeof dns.promises.lookup;

const WAIT = 120_000;
const SANDBOX = "allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox allow-forms";

let server: TestServer;
let ann: TestUser;
let ben: TestUser;
let admin: TestUser;
let site: Server;
/** `http://cards.example.com:port` */
let origin: string;
let port: number;
/** Requests the site answered, by path. */
const hits = new Map<string, number>();
let articleTitle = "Fallback title";
let picture: Buffer;

type Page = { type: string; body: string | Buffer };

function pages(): Record<string, Page> {
  const html = (body: string) => ({ type: "text/html; charset=utf-8", body });
  return {
    "/article": html(`<!doctype html><html lang="fr"><head>
<title>${articleTitle}</title>
<meta property="og:title" content="OG title">
<meta property="og:description" content="OG description">
<meta property="og:image" content="/image.png">
<meta property="og:image:alt" content="An orange square">
<meta property="og:site_name" content="The Daily Example">
<meta property="article:published_time" content="2026-11-01T10:00:00Z">
<meta name="fediverse:creator" content="@ann@${new URL(server.url).host}">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle",
"headline":"${articleTitle === "Fallback title" ? "Birds and bees" : articleTitle}","description":"All about birds",
"author":{"@type":"Person","name":"Ann Author","url":"https://cards.example.com/ann"},
"publisher":{"@type":"Organization","name":"Example News"},"inLanguage":"en-GB",
"datePublished":"2026-11-02T08:00:00Z"}</script>
</head><body><p>Hello</p></body></html>`),
    "/player": {
      type: "text/html",
      body: Buffer.from(
        `<html><head><meta charset="windows-1252"><title>Caf\xe9 player</title>
<meta name="description" content="Cr\xe8me br\xfbl\xe9e">
<meta name="twitter:player" content="https://player.example.com/embed/1">
<meta name="twitter:player:width" content="640"><meta name="twitter:player:height" content="360">
</head></html>`,
        "latin1",
      ),
    },
    "/video": html(`<html><head><title>Not this</title>
<link rel="alternate" type="application/json+oembed" href="/oembed.json">
<meta property="og:title" content="Nor this"></head></html>`),
    "/oembed.json": {
      type: "application/json",
      body: JSON.stringify({
        version: "1.0",
        type: "video",
        title: "A video",
        author_name: "Vid Author",
        author_url: "/people/vid",
        provider_name: "VidSite",
        provider_url: "/",
        width: 480,
        height: 270,
        html: '<script>alert(1)</script><p>text</p><iframe src="https://player.example.com/v/2" width="480" height="270" onload="steal()"></iframe>',
        thumbnail_url: "/image.png",
      }),
    },
    "/twitter": html(`<html><head><title>Page title</title>
<meta name="twitter:card" content="summary">
<meta name="twitter:title" content="Twitter title">
<meta name="twitter:description" content="Twitter description">
</head></html>`),
    "/data.json": { type: "application/json", body: "{}" },
    "/hostile": html(
      `<title>Bad\u0000 title</title><meta name="description" content="${"word ".repeat(2000)}"><script type="application/ld+json">${"[".repeat(100_000)}</script>`,
    ),
    "/image.png": { type: "image/png", body: picture },
  };
}

/** Requests for /held/… pages, unanswered until `letGo`. */
const held: (() => void)[] = [];
let letGo = false;

function startSite(): Promise<void> {
  site = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://site").pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (path.startsWith("/held/")) {
      const answer = () => res.writeHead(200, { "content-type": "text/html" }).end(`<title>Held ${path}</title>`);
      if (letGo) answer();
      else held.push(answer);
      return;
    }
    const page = pages()[path] ?? (path.startsWith("/same/") ? pages()["/twitter"] : undefined);
    if (!page) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": page.type }).end(page.body);
  });
  return new Promise((resolve) => site.listen(0, "127.0.0.1", resolve));
}

before(async () => {
  picture = await sharp({ create: { width: 800, height: 600, channels: 3, background: "#e07020" } })
    .png()
    .toBuffer();
  await startSite();
  port = (site.address() as AddressInfo).port;
  origin = `http://cards.example.com:${port}`;
  server = await startServer({ env: { ALLOW_PRIVATE_ADDRESSES: "true" } });
  ann = await server.user("ann");
  ben = await server.user("ben");
  admin = await server.user("boss", { role: "admin", scopes: ["read", "write", "admin:read", "admin:write"] });
  for (const u of [ann, ben]) await setAccount(server, u.accountId, { discoverable: true });
});
after(async () => {
  await server.close();
  await new Promise((resolve) => site.close(resolve));
  dns.promises.lookup = systemLookup;
});

async function post(user: TestUser, status: string): Promise<{ id: string; card: unknown }> {
  const res = await server.post("/api/v1/statuses", { token: user.token, json: { status } });
  assert.equal(res.status, 200, res.text);
  return res.body;
}

/** The status once its card job has run: waits for the card (or, with `none`, for the queue). */
async function cardOf(id: string, o: { none?: boolean; title?: string } = {}): Promise<any> {
  if (o.none) await server.settle();
  const end = Date.now() + WAIT;
  for (;;) {
    const card = (await server.get(`/api/v1/statuses/${id}`, { token: ann.token })).body.card;
    if (o.none || (card && (!o.title || card.title === o.title))) return card;
    if (Date.now() > end) throw new Error(`no card for status ${id}`);
    await server.settle();
    await sleep(20);
  }
}

test("a JSON-LD article: its card has Mastodon's fields, its picture scaled to 400 px, its author's account", async (t) => {
  const status = await post(ann, `Read this ${origin}/article please`);
  assert.equal(status.card, null, "posting does not wait for the card");
  const card = await cardOf(status.id);
  assertEntity(t, "PreviewCard", card);
  assert.match(card.image, /^http:\/\/127\.0\.0\.1:\d+\/system\/preview_cards\/[\w-]+\.jpg$/);
  assert.match(card.blurhash, /^[0-9A-Za-z#$%*+,\-.:;=?@[\]^_{|}~]{20,}$/);
  const { image, blurhash, authors, ...rest } = card;
  assert.deepEqual(rest, {
    url: `${origin}/article`,
    title: "Birds and bees",
    description: "All about birds",
    language: "en",
    type: "link",
    author_name: "Ann Author",
    author_url: "https://cards.example.com/ann",
    provider_name: "Example News",
    provider_url: "",
    html: "",
    width: 400,
    height: 300,
    image_description: "An orange square",
    embed_url: "",
    published_at: "2026-11-02T08:00:00.000Z",
  });
  assert.equal(authors.length, 1);
  assert.deepEqual(
    [authors[0].name, authors[0].url, authors[0].account.id],
    ["Ann Author", "https://cards.example.com/ann", ann.accountId],
  );
  const stored = await fetch(image);
  assert.equal(stored.status, 200);
  const meta = await sharp(Buffer.from(await stored.arrayBuffer())).metadata();
  assert.deepEqual([meta.format, meta.width, meta.height], ["jpeg", 400, 300]);
  assert.equal(hits.get("/article"), 1);
  assert.equal(hits.get("/image.png"), 1);

  // The same card in a timeline, in a status list, and on the public page with an OpenGraph summary.
  const timeline = await server.get(`/api/v1/accounts/${ann.accountId}/statuses`, { token: ben.token });
  assert.equal(timeline.body[0].card.title, "Birds and bees");
  const page = await server.get(`/@ann/${status.id}`);
  assert.match(page.text, /<a class="card" href="http:\/\/cards\.example\.com:\d+\/article"/);
  assert.match(page.text, /<strong>Birds and bees<\/strong>/);
  assert.match(page.text, /<meta property="og:description" content="Read this http:\/\/cards\.example\.com/);
  assert.match(page.text, /<meta property="og:title" content="[^"]*\(@ann@[^)"]+\)">/);
});

test("a Twitter player in windows-1252: a video card with its iframe sandboxed", async () => {
  const status = await post(ben, `Watch ${origin}/player`);
  const card = await cardOf(status.id);
  assert.deepEqual(
    [card.type, card.title, card.description, card.width, card.height, card.image],
    ["video", "Café player", "Crème brûlée", 640, 360, null],
  );
  assert.equal(
    card.html,
    `<iframe allowfullscreen="true" frameborder="0" height="360" scrolling="no" src="https://player.example.com/embed/1" width="640" sandbox="${SANDBOX}"></iframe>`,
  );
});

test("oEmbed comes first; its html keeps nothing but the iframe", async () => {
  const status = await post(ben, `Video: ${origin}/video`);
  const card = await cardOf(status.id);
  assert.deepEqual(
    [card.type, card.title, card.author_name, card.author_url, card.provider_name, card.provider_url],
    ["video", "A video", "Vid Author", `${origin}/people/vid`, "VidSite", `${origin}/`],
  );
  assert.deepEqual([card.width, card.height, card.description], [480, 270, ""]);
  assert.equal(
    card.html,
    `<iframe height="270" src="https://player.example.com/v/2" width="480" sandbox="${SANDBOX}"></iframe>`,
  );
  assert.match(card.image, /\/system\/preview_cards\//);
  assert.equal(hits.get("/oembed.json"), 1);
});

test("Twitter's card tags when there is no OpenGraph; JSON and missing pages make no card", async () => {
  const status = await post(ben, `See ${origin}/twitter and ${origin}/article`);
  const card = await cardOf(status.id);
  assert.deepEqual(
    [card.title, card.description, card.url],
    ["Twitter title", "Twitter description", `${origin}/twitter`],
  );
  const json = await post(ben, `Data ${origin}/data.json`);
  assert.equal(await cardOf(json.id, { none: true }), null);
  const missing = await post(ben, `Gone ${origin}/missing`);
  assert.equal(await cardOf(missing.id, { none: true }), null);
  assert.equal(hits.get("/missing"), 1);
});

test("a hostile page: NUL characters dropped, texts bounded, broken JSON-LD ignored", async () => {
  const status = await post(ben, `Hostile ${origin}/hostile`);
  const card = await cardOf(status.id);
  assert.equal(card.title, "Bad title");
  assert.equal(card.description.length, 3000);
  assert.ok(card.description.endsWith("word…"));
});

test("a card reaches the streams that carried the status as status.update", async () => {
  const socket = await Socket.open(wsUrl(server, "?stream=public"), { token: ben.token });
  try {
    await subscribed(server, 1);
    const status = await post(ann, `Live ${origin}/same/live`);
    const update = await socket.next("status.update", (f) => JSON.parse(f.payload!).id === status.id, WAIT);
    const entity = JSON.parse(update.payload!);
    assert.equal(entity.card.title, "Twitter title");
    assert.equal(entity.card.url, `${origin}/same/live`);
    const published = await socket.next("update", (f) => JSON.parse(f.payload!).id === status.id, WAIT);
    assert.equal(JSON.parse(published.payload!).account.id, ann.accountId);
    // An edit that drops the link drops the card, and tells the stream.
    const edit = await server.put(`/api/v1/statuses/${status.id}`, {
      token: ann.token,
      json: { status: "Live, without the link" },
    });
    assert.equal(edit.status, 200, edit.text);
    await socket.next(
      "status.update",
      (f) => JSON.parse(f.payload!).id === status.id && JSON.parse(f.payload!).card === null,
      WAIT,
    );
    assert.equal(await cardOf(status.id, { none: true }), null);
  } finally {
    socket.close();
  }
});

test("a thousand links to one URL fetch it once; a stale card is fetched again, for every status", async () => {
  const posts = await Promise.all(
    Array.from({ length: 8 }, (_, i) => post(i % 2 ? ann : ben, `Same ${origin}/same/one`)),
  );
  for (const p of posts) assert.equal((await cardOf(p.id)).title, "Twitter title");
  assert.equal(hits.get("/same/one"), 1);
  const later = await post(ann, `Again ${origin}/same/one`);
  assert.equal((await cardOf(later.id)).title, "Twitter title");
  assert.equal(hits.get("/same/one"), 1, "a card fetched recently is reused");

  // Two weeks later (made so), the next status linking the article fetches it anew.
  articleTitle = "Birds, revised";
  await server.rt.db
    .updateTable("preview_cards")
    .set({ stale_at: new Date(Date.now() - 1000) })
    .where("url", "=", `${origin}/article`)
    .execute();
  const [first] = (await server.get(`/api/v1/accounts/${ann.accountId}/statuses`, { token: ann.token })).body.filter(
    (s: any) => s.card?.url === `${origin}/article` && s.content.includes("Read this"),
  );
  const again = await post(ben, `Revised ${origin}/article`);
  assert.equal((await cardOf(again.id, { title: "Birds, revised" })).title, "Birds, revised");
  assert.equal(hits.get("/article"), 2);
  assert.equal((await cardOf(first.id, { title: "Birds, revised" })).title, "Birds, revised");
});

test("pages that hang take two job slots at most: a post meanwhile reaches its followers", async () => {
  await follow(server, ben, ann);
  const slow = [];
  for (let i = 0; i < 5; i++) slow.push(await post(ann, `Slow ${origin}/held/${i}`));
  await until(() => held.length === 2, WAIT, "two pages asked for");
  const plain = await post(ann, "Meanwhile, a plain post");
  for (;;) {
    const home = await server.get("/api/v1/timelines/home", { token: ben.token });
    if (home.body.some((s: { id: string }) => s.id === plain.id)) break;
    await sleep(20);
  }
  assert.equal(held.length, 2, "no other page was asked for meanwhile");
  letGo = true;
  for (const answer of held.splice(0)) answer();
  for (const p of slow) assert.match((await cardOf(p.id)).title, /^Held \/held\/\d$/);
});

test("blocked domains, and servers whose media are rejected, get no card", async () => {
  await blockDomain(server.rt, { domain: "blocked.example.com", severity: "suspend" });
  await blockDomain(server.rt, { domain: "nomedia.example.com", severity: "noop", rejectMedia: true });
  const blocked = await post(ann, `Blocked http://blocked.example.com:${port}/same/blocked`);
  const noMedia = await post(ann, `No media http://nomedia.example.com:${port}/same/nomedia`);
  assert.equal(await cardOf(blocked.id, { none: true }), null);
  assert.equal(await cardOf(noMedia.id, { none: true }), null);
  assert.equal(hits.get("/same/blocked"), undefined);
  assert.equal(hits.get("/same/nomedia"), undefined);
});

test("a status from another server through the inbox gets its card; not when its server's media are rejected", async () => {
  const remote: RemoteServer = await startRemoteServer();
  try {
    const mallory: RemoteActor = remote.actor("mallory");
    const send = async (n: number, path: string) => {
      const note = `${mallory.id}/statuses/${n}`;
      const content = `<p>Look <a href="${origin}${path}" rel="nofollow noopener">${origin}${path}</a></p>`;
      const activity = {
        "@context": "https://www.w3.org/ns/activitystreams",
        id: `${note}/activity`,
        type: "Create",
        actor: mallory.id,
        to: ["https://www.w3.org/ns/activitystreams#Public"],
        object: {
          id: note,
          type: "Note",
          attributedTo: mallory.id,
          published: new Date().toISOString(),
          to: ["https://www.w3.org/ns/activitystreams#Public"],
          content,
        },
      };
      const body = JSON.stringify(activity);
      const inbox = `${server.url}/inbox`;
      const res = await fetch(inbox, {
        method: "POST",
        headers: signedPostHeaders(mallory, inbox, body, "draft-cavage"),
        body,
      });
      assert.equal(res.status, 202);
      await server.settle();
      const row = await server.rt.db
        .selectFrom("statuses")
        .select("id")
        .where("uri", "=", note)
        .executeTakeFirstOrThrow();
      return row.id;
    };
    const id = await send(1, "/same/remote");
    assert.equal((await cardOf(id)).url, `${origin}/same/remote`);
    await blockDomain(server.rt, { domain: remote.host.replace(/:\d+$/, ""), severity: "noop", rejectMedia: true });
    const rejected = await send(2, "/same/remote-rejected");
    assert.equal(await cardOf(rejected, { none: true }), null);
    assert.equal(hits.get("/same/remote-rejected"), undefined);
  } finally {
    await remote.close();
  }
});

test("a link to a private address gets no card without ALLOW_PRIVATE_ADDRESSES", async () => {
  const strict = await startServer();
  try {
    const user = await strict.user("carol");
    const res = await strict.post("/api/v1/statuses", {
      token: user.token,
      json: { status: `Inside https://cards.example.com:${port}/same/private` },
    });
    assert.equal(res.status, 200);
    await strict.settle();
    const read = await strict.get(`/api/v1/statuses/${res.body.id}`, { token: user.token });
    assert.equal(read.body.card, null);
    assert.equal(hits.get("/same/private"), undefined);
    const [card] = await strict.rt.db.selectFrom("preview_cards").selectAll().execute();
    assert.deepEqual([card.title, card.fetched_at], ["", null], "refused, and to be tried again later");
  } finally {
    await strict.close();
  }
});

test("has:embed finds the statuses with a card", async () => {
  const plain = await post(ann, "Same, without a link");
  const res = await server.get("/api/v2/search", {
    token: ann.token,
    query: { q: "same has:embed", type: "statuses" },
  });
  assert.equal(res.status, 200);
  const ids = res.body.statuses.map((s: { id: string }) => s.id);
  assert.ok(ids.length > 0);
  assert.ok(!ids.includes(plain.id));
  for (const s of res.body.statuses) assert.notEqual(s.card, null);
});

test("links trend once reviewed, by card or by publisher; their timeline lists the statuses sharing them", async (t) => {
  const articleUrl = `${origin}/article`;
  assert.deepEqual((await server.get("/api/v1/trends/links")).body, [], "nothing is reviewed yet");
  assert.equal(
    (await server.get("/api/v1/timelines/link", { token: ann.token, query: { url: articleUrl } })).status,
    404,
  );

  const review = await server.get("/api/v1/admin/trends/links", { token: admin.token });
  assert.equal(review.status, 200);
  const byUrl = new Map(review.body.map((l: any) => [l.url, l]));
  const article: any = byUrl.get(articleUrl);
  assert.equal(article.requires_review, true);
  assert.equal(article.title, "Birds, revised");
  assert.equal(article.history[0].accounts, "2");
  const approved = await server.post(`/api/v1/admin/trends/links/${article.id}/approve`, { token: admin.token });
  assert.equal(approved.status, 200, approved.text);
  assert.equal(approved.body.requires_review, false);

  const trends = await server.get("/api/v1/trends/links");
  assertEntity(t, "TrendsLink", trends.body[0]);
  assert.deepEqual(
    trends.body.map((l: any) => l.url),
    [articleUrl],
  );
  assert.equal(trends.body[0].history.length, 7);
  assert.equal(trends.body[0].authors[0].account.id, ann.accountId);

  const timeline = await server.get("/api/v1/timelines/link", { token: ben.token, query: { url: articleUrl } });
  assert.equal(timeline.status, 200);
  assert.deepEqual(
    timeline.body.map((s: any) => [s.account.id, s.card.url]),
    [
      [ben.accountId, articleUrl],
      [ann.accountId, articleUrl],
    ],
  );

  // Approving the publisher lets its other cards trend; a card rejected stays out.
  const publishers = await server.get("/api/v1/admin/trends/links/publishers", { token: admin.token });
  const publisher = publishers.body.find((p: any) => p.domain === "cards.example.com");
  assert.deepEqual([publisher.trendable, publisher.requires_review], [false, true]);
  const ok = await server.post(`/api/v1/admin/trends/links/publishers/${publisher.id}/approve`, { token: admin.token });
  assert.deepEqual([ok.status, ok.body.trendable, ok.body.requires_review], [200, true, false]);
  const video = review.body.find((l: any) => l.url === `${origin}/video`);
  const rejected = await server.post(`/api/v1/admin/trends/links/${video.id}/reject`, { token: admin.token });
  assert.equal(rejected.status, 200);
  const after = (await server.get("/api/v1/trends/links", { query: { limit: "40" } })).body.map((l: any) => l.url);
  assert.ok(after.includes(`${origin}/same/one`));
  assert.ok(after.includes(articleUrl));
  assert.ok(!after.includes(`${origin}/video`));
  assert.equal((await server.post("/api/v1/admin/trends/links/123/approve", { token: admin.token })).status, 404);
  assert.equal((await server.get("/api/v1/admin/trends/links", { token: ben.token })).status, 403);
});
