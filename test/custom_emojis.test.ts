// Custom emojis: GET /api/v1/custom_emojis, and what operators add, import and remove (the services
// behind `rookery emoji`, whose command line test/cli.test.ts runs).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import sharp from "sharp";
import { create as createTar } from "tar";
import { addEmoji, importEmojis, removeEmoji } from "../src/services/emojis/custom_emojis.ts";
import { assertEntity } from "./conformance.ts";
import { startServer, type TestServer } from "./rig.ts";

let server: TestServer;
const dir = mkdtempSync(join(tmpdir(), "rookery-emoji-"));

before(async () => {
  server = await startServer();
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const square = (format: "png" | "gif" | "webp", size = 64) =>
  sharp({ create: { width: size, height: size, channels: 4, background: { r: 200, g: 30, b: 90, alpha: 1 } } })
    .toFormat(format)
    .toBuffer();

test("emojis added by an operator are listed, unlisted ones not for the picker", async (t) => {
  await addEmoji(server.rt, { shortcode: "blobcat", image: await square("png"), category: "Blobs" });
  await addEmoji(server.rt, { shortcode: "secret_one", image: await square("gif", 600), unlisted: true });
  const res = await server.get("/api/v1/custom_emojis");
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("cache-control"), "max-age=180, public");
  assert.deepEqual(
    res.body.map((e: { shortcode: string; visible_in_picker: boolean; category: string | null }) => [
      e.shortcode,
      e.visible_in_picker,
      e.category,
    ]),
    [
      ["blobcat", true, "Blobs"],
      ["secret_one", false, null],
    ],
  );
  const [blobcat, secret] = res.body;
  for (const e of res.body) assertEntity(t, "CustomEmoji", e);
  assert.match(blobcat.url, /^http:\/\/.+\/custom_emojis\/\d+\/blobcat\.png$/);
  assert.match(secret.url, /\/secret_one\.gif$/);
  assert.match(secret.static_url, /\/secret_one\.static\.png$/);
  const image = await fetch(secret.url);
  assert.equal(image.status, 200);
  const meta = await sharp(Buffer.from(await image.arrayBuffer())).metadata();
  assert.deepEqual([meta.format, meta.width], ["gif", 400], "resized to at most 400×400");
  const still = await sharp(Buffer.from(await (await fetch(secret.static_url)).arrayBuffer())).metadata();
  assert.equal(still.format, "png");
});

test("the list is prepared bytes: ETag, 304, the same through the router, made anew when emojis change", async () => {
  const first = await server.get("/api/v1/custom_emojis");
  const etag = first.headers.get("etag")!;
  assert.match(etag, /^"[\w-]{32}"$/);
  assert.equal(first.headers.get("access-control-allow-origin"), "*");
  const routed = await server.get("/api/v1/custom_emojis?x=1");
  assert.deepEqual([routed.text, routed.headers.get("etag")], [first.text, etag]);
  for (const path of ["/api/v1/custom_emojis", "/api/v1/custom_emojis?x=1"]) {
    const fresh = await server.get(path, { headers: { "if-none-match": etag } });
    assert.deepEqual([fresh.status, fresh.text], [304, ""], path);
  }

  await addEmoji(server.rt, { shortcode: "fresh_one", image: await square("png") });
  const added = await server.get("/api/v1/custom_emojis", { headers: { "if-none-match": etag } });
  assert.equal(added.status, 200);
  assert.notEqual(added.headers.get("etag"), etag);
  assert.ok(added.body.some((e: { shortcode: string }) => e.shortcode === "fresh_one"));

  await removeEmoji(server.rt, "fresh_one");
  const removed = await server.get("/api/v1/custom_emojis");
  assert.equal(removed.headers.get("etag"), etag, "the same list, the same bytes");
  assert.equal(removed.text, first.text);
});

test("bad shortcodes, formats and sizes are refused; a taken shortcode needs overwrite", async () => {
  const png = await square("png");
  await assert.rejects(addEmoji(server.rt, { shortcode: "x", image: png }), /Shortcode/);
  await assert.rejects(addEmoji(server.rt, { shortcode: "bad-code", image: png }), /Shortcode/);
  await assert.rejects(
    addEmoji(server.rt, { shortcode: "jpeg", image: await square("jpeg" as "png") }),
    /PNG, GIF or WebP/,
  );
  await assert.rejects(addEmoji(server.rt, { shortcode: "text", image: Buffer.from("not an image") }), /not an image/);
  await assert.rejects(addEmoji(server.rt, { shortcode: "huge", image: Buffer.alloc(300 * 1024) }), /256 KB/);
  await assert.rejects(addEmoji(server.rt, { shortcode: "blobcat", image: png }), /already been taken/);
  await addEmoji(server.rt, { shortcode: "blobcat", image: await square("webp"), overwrite: true });
  const listed = (await server.get("/api/v1/custom_emojis")).body;
  assert.match(listed.find((e: { shortcode: string }) => e.shortcode === "blobcat").url, /blobcat\.webp$/);
});

test("an archive imports every image in it; removal takes an emoji out", async () => {
  const files = join(dir, "pack");
  await import("node:fs/promises").then((fs) => fs.mkdir(files));
  await writeFile(join(files, "party_parrot.gif"), await square("gif"));
  await writeFile(join(files, "thumbs_up.png"), await square("png"));
  await writeFile(join(files, "readme.txt"), "not an emoji");
  await writeFile(join(files, "x.png"), await square("png"));
  const archive = join(dir, "pack.tar.gz");
  await createTar({ gzip: true, file: archive, cwd: dir }, ["pack"]);
  const result = await importEmojis(server.rt, archive, { category: "Imported" });
  assert.deepEqual(result.added.toSorted(), ["party_parrot", "thumbs_up"]);
  assert.deepEqual(
    result.skipped.map((s) => s.name),
    ["x.png"],
  );
  await removeEmoji(server.rt, "thumbs_up");
  await assert.rejects(removeEmoji(server.rt, "thumbs_up"), /not found/i);
  const codes = (await server.get("/api/v1/custom_emojis")).body.map((e: { shortcode: string }) => e.shortcode);
  assert.deepEqual(codes, ["blobcat", "party_parrot", "secret_one"]);
});

test("statuses, display names, bios and fields list the custom emojis they use", async () => {
  const user = await server.user("emojifan");
  const updated = await server.patch("/api/v1/accounts/update_credentials", {
    token: user.token,
    json: {
      display_name: "Fan :party_parrot:",
      note: "I like :blobcat: and :nope:",
      fields_attributes: { 0: { name: "mood", value: ":secret_one:" } },
    },
  });
  assert.equal(updated.status, 200, updated.text);
  const codes = (list: { shortcode: string }[]) => list.map((e) => e.shortcode);
  assert.deepEqual(codes(updated.body.emojis), ["party_parrot", "blobcat", "secret_one"]);
  const posted = await server.post("/api/v1/statuses", {
    token: user.token,
    json: { status: "hello :blobcat::blobcat: and:party_parrot: and :secret_one:", spoiler_text: ":party_parrot:" },
  });
  assert.equal(posted.status, 200);
  // Glued to a word, or to another shortcode, it is not an emoji.
  assert.deepEqual(codes(posted.body.emojis), ["party_parrot", "secret_one"]);
  const secret = posted.body.emojis.find((e: { shortcode: string }) => e.shortcode === "secret_one");
  assert.equal(secret.visible_in_picker, false);
  assert.deepEqual(codes(posted.body.account.emojis), ["party_parrot", "blobcat", "secret_one"]);
  const shown = await server.get(`/api/v1/statuses/${posted.body.id}`);
  assert.deepEqual(codes(shown.body.emojis), ["party_parrot", "secret_one"]);
  const account = await server.get(`/api/v1/accounts/${user.accountId}`);
  assert.deepEqual(codes(account.body.emojis), ["party_parrot", "blobcat", "secret_one"]);
  const me = await server.get("/api/v1/accounts/verify_credentials", { token: user.token });
  assert.deepEqual(codes(me.body.emojis), ["party_parrot", "blobcat", "secret_one"]);
});
