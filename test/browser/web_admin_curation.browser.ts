// The web admin's hashtag, trend and custom emoji pages in a real browser: an admin signs in and
// uses them as people do, and the public API shows the effect.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import sharp from "sharp";
import { newId } from "../../src/domain/ids.ts";
import { post } from "../fixtures.ts";
import { startServer, type TestServer } from "../rig.ts";
import { inPage, launch, missingChromium, signIn } from "./chromium.ts";

let server: TestServer;
let browser: Browser;

before(async () => {
  if (missingChromium) return;
  server = await startServer({ env: { ALLOW_PRIVATE_ADDRESSES: "true" } });
  browser = await launch();
  await server.user("boss", { role: "admin" });
  const ann = await server.user("ann");
  const ben = await server.user("ben");
  await post(server, ann, "Out with the #Seabirds today");
  await post(server, ben, "#seabirds everywhere");
});
after(async () => {
  await browser?.close();
  await server?.close();
});

const skip = missingChromium ?? undefined;

const emojis = async () =>
  (await server.get("/api/v1/custom_emojis")).body.map((e: any) => [e.shortcode, e.visible_in_picker, e.category]);

test("an admin approves a trending hashtag; it trends publicly", { skip }, async (t) => {
  await inPage(t, browser, async (page) => {
    assert.deepEqual((await server.get("/api/v1/trends/tags")).body, []);
    await signIn(page, server, "boss", "/admin/reports");
    await page.getByRole("link", { name: "Trends" }).click();
    const row = page.getByRole("row", { name: /#Seabirds/ });
    assert.match(await row.innerText(), /#Seabirds\s+2\s+Pending review/);
    await row.getByRole("button", { name: "Approve" }).click();
    await page.getByRole("status").waitFor();
    assert.match(await page.getByRole("row", { name: /#Seabirds/ }).innerText(), /Approved/);
    const trends = (await server.get("/api/v1/trends/tags")).body;
    assert.deepEqual(
      trends.map((tag: any) => [tag.name, tag.history[0].accounts]),
      [["Seabirds", "2"]],
    );

    await page.getByRole("link", { name: "Posts" }).click();
    await page.getByRole("heading", { name: "Trends: Posts" }).waitFor();
  });
});

test("an admin finds a hashtag by name and keeps it out of search", { skip }, async (t) => {
  await inPage(t, browser, async (page) => {
    await signIn(page, server, "boss", "/admin/tags");
    await page.getByLabel("Name").fill("#sea");
    await page.getByRole("button", { name: "Search" }).click();
    await page.getByRole("link", { name: "#Seabirds" }).click();
    await page.getByRole("heading", { name: "#Seabirds" }).waitFor();
    await page.getByLabel("Listed in search and the directory").uncheck();
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByRole("status").waitFor();
    assert.equal(await page.getByLabel("Listed in search and the directory").isChecked(), false);
    assert.equal(await page.getByLabel("Can be used in posts").isChecked(), true);
    const api = await server.user("tagapi", { role: "admin", scopes: ["admin:read"] });
    const tags = (await server.get("/api/v1/admin/tags", { token: api.token })).body;
    const seabirds = tags.find((tag: any) => tag.name === "Seabirds");
    assert.deepEqual([seabirds.listable, seabirds.usable, seabirds.requires_review], [false, true, false]);
  });
});

test("an admin uploads an emoji, unlists it, and copies another server's", { skip }, async (t) => {
  await inPage(t, browser, async (page) => {
    await signIn(page, server, "boss", "/admin/custom_emojis");
    const png = await sharp({
      create: { width: 48, height: 48, channels: 4, background: { r: 240, g: 180, b: 20, alpha: 1 } },
    })
      .png()
      .toBuffer();
    await page.getByLabel("Shortcode", { exact: true }).last().fill("puffin");
    await page.getByLabel(/^Image/).setInputFiles({ name: "puffin.png", mimeType: "image/png", buffer: png });
    await page.getByLabel("Category", { exact: true }).last().fill("Seabirds");
    await page.getByRole("button", { name: "Upload" }).click();
    await page.getByRole("status").waitFor();
    assert.deepEqual(await emojis(), [["puffin", true, "Seabirds"]]);
    const shown = await page
      .getByRole("img", { name: ":puffin:" })
      .evaluate((img: HTMLImageElement) => img.naturalWidth);
    assert.equal(shown, 48, "the page shows the emoji's image");

    await page
      .getByRole("row", { name: /:puffin:/ })
      .getByRole("button", { name: "Unlist" })
      .click();
    await page.getByRole("status").waitFor();
    assert.deepEqual(await emojis(), [["puffin", false, "Seabirds"]]);
    assert.match(await page.getByRole("row", { name: /:puffin:/ }).innerText(), /Unlisted/);

    // Another server's emoji (its image served by this one, as any server serves its own).
    const now = new Date();
    const url = (await server.get("/api/v1/custom_emojis")).body[0].url;
    await server.rt.db
      .insertInto("remote_emojis")
      .values({
        id: newId(),
        domain: "cliffs.example",
        shortcode: "gannet",
        uri: null,
        image_url: url,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await page.getByRole("link", { name: "Other servers" }).click();
    await page.getByLabel("Domain").fill("cliffs");
    await page.getByRole("button", { name: "Search" }).click();
    await page
      .getByRole("row", { name: /:gannet:/ })
      .getByRole("button", { name: "Copy to this server" })
      .click();
    await page.getByRole("status").waitFor();
    assert.deepEqual(await emojis(), [
      ["gannet", true, null],
      ["puffin", false, "Seabirds"],
    ]);
    await page.getByRole("link", { name: "This server" }).click();
    await page.getByRole("img", { name: ":gannet:" }).waitFor();
  });
});

test("the pages follow the browser's language", { skip }, async (t) => {
  await inPage(
    t,
    browser,
    async (page) => {
      await signIn(page, server, "boss", "/admin/custom_emojis");
      assert.equal(await page.locator("html").getAttribute("lang"), "de");
      await page.getByRole("heading", { name: "Eigene Emojis" }).waitFor();
      await page.getByRole("link", { name: "Trends", exact: true }).click();
      await page.getByRole("link", { name: "Beiträge" }).waitFor();
    },
    { locale: "de-DE" },
  );
});
