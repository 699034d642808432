// A web client in a real browser stays live: a small page, served by the test as a client app would
// be, finds the streaming URL in the instance document, shows the home timeline, and inserts a
// status posted through the API the moment the browser's WebSocket hears of it, without a reload.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { follow, post } from "../fixtures.ts";
import { startServer, type TestServer, type TestUser } from "../rig.ts";
import { inPage, launch, missingChromium } from "./chromium.ts";

// The page takes the server and the token from its address, as an app keeps them after signing in.
const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>Home</title>
<p id="state">connecting</p>
<main id="timeline"></main>
<script type="module">
const params = new URLSearchParams(location.search);
const api = params.get("server");
const token = params.get("token");
const timeline = document.getElementById("timeline");
function show(status, first) {
  if (document.querySelector('[data-id="' + status.id + '"]')) return;
  const article = document.createElement("article");
  article.dataset.id = status.id;
  article.innerHTML = status.content;
  if (first) timeline.prepend(article);
  else timeline.append(article);
}
const headers = { authorization: "Bearer " + token };
const instance = await (await fetch(api + "/api/v2/instance")).json();
for (const status of await (await fetch(api + "/api/v1/timelines/home", { headers })).json()) show(status, false);
const socket = new WebSocket(instance.configuration.urls.streaming + "/api/v1/streaming?stream=user&access_token=" + token);
socket.onopen = () => { document.getElementById("state").textContent = "live"; };
socket.onmessage = (message) => {
  const frame = JSON.parse(message.data);
  if (frame.event === "update") show(JSON.parse(frame.payload), true);
  if (frame.event === "delete") document.querySelector('[data-id="' + frame.payload + '"]')?.remove();
};
</script>`;

let server: TestServer;
let pages: Server;
let pagesUrl: string;
let browser: Browser;
let reader: TestUser;
let writer: TestUser;

before(async () => {
  if (missingChromium) return;
  server = await startServer();
  reader = await server.user("reader");
  writer = await server.user("writer");
  await follow(server, reader, writer);
  pages = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(PAGE);
  });
  await new Promise<void>((resolve) => pages.listen(0, "127.0.0.1", resolve));
  pagesUrl = `http://127.0.0.1:${(pages.address() as AddressInfo).port}/`;
  browser = await launch();
});
after(async () => {
  await browser?.close();
  pages?.close();
  await server?.close();
});

const skip = missingChromium ?? undefined;

test("a new post appears in the open page without a reload, and a deleted one goes", { skip }, async (t) => {
  const earlier = await post(server, writer, "Posted before the page opened");
  await inPage(t, browser, async (page) => {
    let loads = 0;
    page.on("load", () => loads++);
    await page.goto(`${pagesUrl}?server=${encodeURIComponent(server.url)}&token=${reader.token}`);
    await page.locator("#state", { hasText: "live" }).waitFor();
    await page.locator(`[data-id="${earlier.id}"]`).waitFor();

    const fresh = await post(server, writer, "Live from the stream");
    const article = page.locator(`[data-id="${fresh.id}"]`);
    await article.waitFor();
    assert.equal(await article.textContent(), "Live from the stream");
    // Newest first, above what the page loaded.
    const order = await page.locator("article").evaluateAll((nodes) => nodes.map((n) => (n as HTMLElement).dataset.id));
    assert.deepEqual(order, [fresh.id, earlier.id]);

    assert.equal((await server.delete(`/api/v1/statuses/${fresh.id}`, { token: writer.token })).status, 200);
    await article.waitFor({ state: "detached" });
    assert.equal(loads, 1, "the page was never reloaded");
  });
});
