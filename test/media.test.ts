// Media uploads through the API: images, GIF, video, audio, base64, limits, bad files, focus and
// descriptions, attaching, edits, scheduled statuses, only_media, deletion and cleanup.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import sharp from "sharp";
import { withImageSlot } from "../src/media/image_slots.ts";
import { deleteLocalAccount } from "../src/services/moderation/admin_accounts.ts";
import { assertEntity } from "./conformance.ts";
import { post } from "./fixtures.ts";
import {
  animatedGif,
  audio,
  blob,
  download,
  ffmpeg,
  form,
  noFfmpeg,
  photo,
  png,
  upload,
  video,
  webp,
} from "./media_files.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let alice: TestUser;
let bob: TestUser;

before(async () => {
  server = await startServer({ env: { MAX_IMAGE_PIXELS: "4000000" } });
  alice = await server.user("alice");
  bob = await server.user("bob");
});
after(() => server.close());

/** POST /api/v1/statuses, whatever it answers. */
const attempt = (user: TestUser, json: Record<string, unknown>) =>
  server.post("/api/v1/statuses", { token: user.token, json });

const localPath = (url: string) =>
  join(server.rt.config.dataDir, "media", new URL(url).pathname.replace(/^\/system\//, ""));

test("a JPEG: turned upright, EXIF and GPS dropped, a preview and a blurhash, served safely", async (t) => {
  const res = await server.post("/api/v2/media", {
    token: alice.token,
    multipart: form({ file: blob(await photo(600, 400), "image/jpeg"), description: "A field", focus: "0.5,-0.25" }),
  });
  assert.equal(res.status, 200);
  const m = res.body;
  assertEntity(t, "MediaAttachment", m);
  assert.equal(m.type, "image");
  assert.equal(m.description, "A field");
  assert.deepEqual(m.meta.focus, { x: 0.5, y: -0.25 });
  // Orientation 6: the 600×400 picture is shown 400×600.
  assert.deepEqual(m.meta.original, { width: 400, height: 600, size: "400x600", aspect: 0.666667 });
  assert.deepEqual(m.meta.small, { width: 400, height: 600, size: "400x600", aspect: 0.666667 });
  assert.match(m.url, /^http:\/\/127\.0\.0\.1:\d+\/system\/media_attachments\/[\w-]+\/original\.jpg$/);
  assert.match(m.preview_url, /\/small\.jpg$/);
  assert.equal(typeof m.blurhash, "string");
  assert.equal(m.blurhash.length, 36);
  assert.equal(m.remote_url, null);

  const file = await download(m.url);
  assert.equal(file.status, 200);
  assert.equal(file.headers.get("content-type"), "image/jpeg");
  assert.equal(file.headers.get("x-content-type-options"), "nosniff");
  assert.equal(file.headers.get("content-security-policy"), "default-src 'none'; sandbox");
  assert.equal(file.headers.get("cache-control"), "public, max-age=31536000, immutable");
  const meta = await sharp(file.data).metadata();
  assert.equal(meta.exif, undefined, "no EXIF (and so no GPS) left");
  assert.equal(meta.orientation, undefined);
  assert.deepEqual([meta.width, meta.height], [400, 600]);

  // Only the uploader sees it through the media API.
  assert.equal((await server.get(`/api/v1/media/${m.id}`, { token: alice.token })).status, 200);
  assert.equal((await server.get(`/api/v1/media/${m.id}`, { token: bob.token })).status, 404);
  assert.equal(
    (await server.put(`/api/v1/media/${m.id}`, { token: bob.token, json: { description: "x" } })).status,
    404,
  );
  assert.equal((await server.get(`/api/v1/media/${m.id}`)).status, 401);
});

test("a photo past 8.3 megapixels: answered once stored (202), then scaled down to them upright by a job, with a preview of it", async () => {
  const large = await startServer();
  try {
    const u = await large.user("dora");
    // Orientation 6: the 4000×2400 picture (9.6 megapixels) is shown 2400×4000.
    const res = await large.post("/api/v2/media", {
      token: u.token,
      multipart: form({ file: blob(await photo(4000, 2400, 80), "image/jpeg") }),
    });
    assert.equal(res.status, 202);
    assert.equal(res.body.url, null);
    await large.settle();
    const done = await large.get(`/api/v1/media/${res.body.id}`, { token: u.token });
    assert.equal(done.status, 200);
    const m = done.body;
    // Mastodon's 3840×2160 worth of pixels (8,294,400), the aspect kept: a factor of 0.9295.
    assert.deepEqual(m.meta.original, { width: 2230, height: 3718, size: "2230x3718", aspect: 0.599785 });
    assert.deepEqual(m.meta.small, { width: 384, height: 640, size: "384x640", aspect: 0.6 });
    const original = await sharp((await download(m.url)).data).metadata();
    assert.deepEqual([original.format, original.width, original.height], ["jpeg", 2230, 3718]);
    assert.equal(original.exif, undefined);
    const preview = await sharp((await download(m.preview_url)).data).metadata();
    assert.deepEqual([preview.format, preview.width, preview.height], ["jpeg", 384, 640]);
    assert.equal(m.blurhash.length, 36);
  } finally {
    await large.close();
  }
});

test("while every image slot is busy, a small image is answered once stored (202) and processed by a job", async () => {
  const slots = availableParallelism();
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let holding = 0;
  let taken: Promise<void>[] = [];
  await new Promise<void>((allHeld) => {
    taken = Array.from({ length: slots }, () =>
      withImageSlot(async () => {
        if (++holding === slots) allHeld();
        await released;
      }),
    );
  });
  let id: string;
  try {
    const res = await server.post("/api/v2/media", {
      token: alice.token,
      multipart: form({ file: blob(await png(40, 30), "image/png") }),
    });
    assert.equal(res.status, 202);
    assert.equal(res.body.url, null);
    id = res.body.id;
    assert.equal((await server.get(`/api/v1/media/${id}`, { token: alice.token })).status, 206);
  } finally {
    release();
    await Promise.all(taken);
  }
  await server.settle();
  const done = await server.get(`/api/v1/media/${id}`, { token: alice.token });
  assert.equal(done.status, 200);
  assert.match(done.body.url, /original\.png$/);
  assert.deepEqual(done.body.meta.original, { width: 40, height: 30, size: "40x30", aspect: 1.333333 });
});

test("PNG (kept with its transparency) and WebP, through the older POST /api/v1/media", async () => {
  const p = await server.post("/api/v1/media", {
    token: alice.token,
    multipart: form({ file: blob(await png(300, 200), "image/png") }),
  });
  assert.equal(p.status, 200);
  assert.match(p.body.url, /original\.png$/);
  assert.match(p.body.preview_url, /small\.png$/);
  assert.equal((await sharp((await download(p.body.url)).data).metadata()).hasAlpha, true);
  const w = await server.post("/api/v1/media", {
    token: alice.token,
    multipart: form({ file: blob(await webp(), "image/webp") }),
  });
  assert.equal(w.status, 200);
  assert.match(w.body.url, /original\.webp$/);
  assert.equal((await download(w.body.url)).headers.get("content-type"), "image/webp");
  assert.deepEqual(w.body.meta.original, { width: 320, height: 240, size: "320x240", aspect: 1.333333 });
});

test("a base64 data: URI upload", async () => {
  const data = `data:image/png;base64,${(await png(40, 30)).toString("base64")}`;
  const res = await server.post("/api/v2/media", { token: alice.token, json: { file: data, description: "dot" } });
  assert.equal(res.status, 200);
  assert.equal(res.body.type, "image");
  assert.equal(res.body.description, "dot");
  assert.deepEqual(res.body.meta.original, { width: 40, height: 30, size: "40x30", aspect: 1.333333 });
});

test("the bytes decide: garbage, HTML and SVG declared as images are refused with 422", async () => {
  const cases: [string, Buffer, string][] = [
    ["garbage", Buffer.from("this is not a picture at all, just some text"), "image/png"],
    ["html", Buffer.from("<html><script>alert(1)</script></html>"), "image/jpeg"],
    ["svg", Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect/></svg>'), "image/svg+xml"],
  ];
  for (const [name, data, type] of cases) {
    const res = await server.post("/api/v2/media", { token: alice.token, multipart: form({ file: blob(data, type) }) });
    assert.equal(res.status, 422, name);
    assert.match(res.body.error, /File content type is invalid/, name);
  }
  const none = await server.post("/api/v2/media", { token: alice.token, json: { description: "no file" } });
  assert.deepEqual([none.status, none.body.error], [422, "Validation failed: File can't be blank"]);
  const noScope = await server.user("readonly", { scopes: ["read"] });
  const forbidden = await server.post("/api/v2/media", {
    token: noScope.token,
    multipart: form({ file: blob(await png(), "image/png") }),
  });
  assert.equal(forbidden.status, 403);
});

test("limits: file size and pixels", async () => {
  const small = await startServer({ env: { MAX_IMAGE_SIZE: "20000" } });
  try {
    const u = await small.user("carol");
    const res = await small.post("/api/v2/media", {
      token: u.token,
      multipart: form({ file: blob(await photo(600, 400), "image/jpeg") }),
    });
    assert.equal(res.status, 422);
    assert.match(res.body.error, /File file size must be less than/);
  } finally {
    await small.close();
  }
  // This server allows 4,000,000 pixels.
  const big = await sharp({ create: { width: 2100, height: 2000, channels: 3, background: "#000" } })
    .png()
    .toBuffer();
  const res = await server.post("/api/v2/media", {
    token: alice.token,
    multipart: form({ file: blob(big, "image/png") }),
  });
  assert.equal(res.status, 422);
  assert.match(res.body.error, /dimensions are too large \(at most 4000000 pixels\)/);
});

test("focus and description: validated, and changed with PUT (thumbnail too)", async () => {
  const bad = async (fields: Record<string, string>) =>
    server.post("/api/v2/media", {
      token: alice.token,
      multipart: form({ ...fields, file: blob(await png(), "image/png") }),
    });
  for (const focus of ["2,0", "0,-1.5", "abc", "0.1", "0.1,0.2,0.3", ","]) {
    const res = await bad({ focus });
    assert.equal(res.status, 422, focus);
    assert.match(res.body.error, /Focus must be two numbers between -1.0 and 1.0/);
  }
  const long = await bad({ description: "d".repeat(1501) });
  assert.deepEqual(
    [long.status, long.body.error],
    [422, "Validation failed: Description is too long (maximum is 1500 characters)"],
  );
  assert.equal((await bad({ description: "d".repeat(1500) })).status, 200);

  const m = await upload(server, alice.token, await png(), "image/png");
  const thumb = await sharp({ create: { width: 100, height: 100, channels: 3, background: "#f00" } })
    .jpeg()
    .toBuffer();
  const put = await server.put(`/api/v1/media/${m.id}`, {
    token: alice.token,
    multipart: form({ description: "Green", focus: "-1,1", thumbnail: blob(thumb, "image/jpeg") }),
  });
  assert.equal(put.status, 200);
  assert.equal(put.body.description, "Green");
  assert.deepEqual(put.body.meta.focus, { x: -1, y: 1 });
  assert.match(put.body.preview_url, /thumbnail-[\w-]+\.jpg$/);
  assert.deepEqual(put.body.meta.small, { width: 100, height: 100, size: "100x100", aspect: 1 });
  assert.notEqual(put.body.blurhash, m.blurhash);
  assert.equal(existsSync(localPath(m.preview_url)), false, "the replaced preview is removed");
  const badPut = await server.put(`/api/v1/media/${m.id}`, { token: alice.token, json: { focus: "5,5" } });
  assert.equal(badPut.status, 422);
});

test("attaching: in the status, at most 4, one's own, not twice, not while processing", async (t) => {
  const media = [];
  for (let i = 0; i < 5; i++) media.push(await upload(server, alice.token, await png(20 + i, 20), "image/png"));
  const ids = media.map((m) => m.id);
  const tooMany = await attempt(alice, { status: "five", media_ids: ids });
  assert.deepEqual([tooMany.status, tooMany.body.error], [422, "Validation failed: Cannot attach more than 4 files"]);
  const garbage = await attempt(alice, { status: "garbage", media_ids: ["not-an-id"] });
  assert.deepEqual([garbage.status, garbage.body.error], [422, "Validation failed: Media not-an-id not found"]);
  const others = await attempt(bob, { status: "not mine", media_ids: [ids[0]] });
  assert.deepEqual([others.status, others.body.error], [422, `Validation failed: Media ${ids[0]} not found`]);

  const ok = await attempt(alice, { status: "", media_ids: ids.slice(0, 2), sensitive: true });
  assert.equal(ok.status, 200);
  assertEntity(t, "Status", ok.body);
  assert.equal(ok.body.sensitive, true);
  assert.deepEqual(
    ok.body.media_attachments.map((m: { id: string }) => m.id),
    ids.slice(0, 2),
  );
  assert.equal(ok.body.media_attachments[0].url, media[0].url);
  const again = await attempt(alice, { status: "again", media_ids: [ids[1]] });
  assert.deepEqual([again.status, again.body.error], [422, `Validation failed: Media ${ids[1]} not found`]);

  // Read back by others; attached media are no longer the media API's (as on Mastodon: read and
  // changed with their status, 404 here; not deleted while a status uses them).
  const seen = await server.get(`/api/v1/statuses/${ok.body.id}`, { token: bob.token });
  assert.equal(seen.body.media_attachments.length, 2);
  const inUse = await server.delete(`/api/v1/media/${ids[0]}`, { token: alice.token });
  assert.deepEqual([inUse.status, inUse.body], [422, { error: "Media attachment is currently used by a status" }]);
  assert.equal((await server.get(`/api/v1/media/${ids[0]}`, { token: alice.token })).status, 404);
  assert.equal(
    (await server.put(`/api/v1/media/${ids[0]}`, { token: alice.token, json: { description: "x" } })).status,
    404,
  );
  // An unattached one can be deleted, and its files go.
  const del = await server.delete(`/api/v1/media/${ids[4]}`, { token: alice.token });
  assert.equal(del.status, 200);
  assert.equal(existsSync(localPath(media[4].url)), false);
  assert.equal((await server.get(`/api/v1/media/${ids[4]}`, { token: alice.token })).status, 404);
  assert.equal((await server.delete(`/api/v1/media/${ids[3]}`, { token: bob.token })).status, 404);
});

test("edits keep the history of media and descriptions", async () => {
  const a = await upload(server, alice.token, await png(30, 30), "image/png", { description: "first" });
  const b = await upload(server, alice.token, await png(31, 30), "image/png", { description: "second" });
  const status = await post(server, alice, { status: "album", media_ids: [a.id, b.id] });
  const edited = await server.put(`/api/v1/statuses/${status.id}`, {
    token: alice.token,
    json: { status: "album", media_ids: [b.id], media_attributes: [{ id: b.id, description: "second, described" }] },
  });
  assert.equal(edited.status, 200);
  assert.deepEqual(
    edited.body.media_attachments.map((m: { id: string; description: string }) => [m.id, m.description]),
    [[b.id, "second, described"]],
  );
  const history = await server.get(`/api/v1/statuses/${status.id}/history`, { token: alice.token });
  assert.deepEqual(
    history.body.map((v: { media_attachments: { id: string; description: string }[] }) =>
      v.media_attachments.map((m) => [m.id, m.description]),
    ),
    [
      [
        [a.id, "first"],
        [b.id, "second"],
      ],
      [[b.id, "second, described"]],
    ],
  );
  // Media taken out by the edit stay with the status (for its history): not attachable elsewhere.
  const reuse = await attempt(alice, { status: "reuse", media_ids: [a.id] });
  assert.equal(reuse.status, 422);
});

test("scheduled statuses keep their media; only_media filters timelines and account statuses", async () => {
  const m = await upload(server, alice.token, await png(33, 33), "image/png");
  const at = new Date(Date.now() + 10 * 60_000).toISOString();
  const scheduled = await attempt(alice, { status: "later", media_ids: [m.id], scheduled_at: at });
  assert.equal(scheduled.status, 200);
  assert.deepEqual(
    scheduled.body.media_attachments.map((x: { id: string }) => x.id),
    [m.id],
  );
  const listed = await server.get("/api/v1/scheduled_statuses", { token: alice.token });
  assert.equal(listed.body[0].media_attachments[0].id, m.id);
  // Reserved: neither attachable now nor deletable.
  assert.equal((await attempt(alice, { status: "now", media_ids: [m.id] })).status, 422);
  assert.equal((await server.delete(`/api/v1/media/${m.id}`, { token: alice.token })).status, 422);

  const withMedia = await post(server, bob, {
    status: "picture",
    media_ids: [(await upload(server, bob.token, await png(), "image/png")).id],
  });
  const without = await post(server, bob, { status: "words only" });
  const ids = (res: { body: { id: string }[] }) => res.body.map((s) => s.id);
  const pub = await server.get("/api/v1/timelines/public", { query: { only_media: "true" } });
  assert.ok(ids(pub).includes(withMedia.id));
  assert.ok(!ids(pub).includes(without.id));
  const acct = await server.get(`/api/v1/accounts/${bob.accountId}/statuses`, { query: { only_media: "true" } });
  assert.deepEqual(ids(acct), [withMedia.id]);
  const all = await server.get(`/api/v1/accounts/${bob.accountId}/statuses`);
  assert.deepEqual(ids(all), [without.id, withMedia.id]);
});

test("deleting a status lets its media go for a redraft; cleanup removes orphans older than a day", async () => {
  const m = await upload(server, alice.token, await png(35, 35), "image/png");
  const status = await post(server, alice, { status: "to delete", media_ids: [m.id] });
  const deleted = await server.delete(`/api/v1/statuses/${status.id}`, { token: alice.token });
  assert.equal(deleted.body.media_attachments[0].id, m.id);
  // Redrafted with the same media.
  const redraft = await attempt(alice, { status: "redraft", media_ids: [m.id] });
  assert.equal(redraft.status, 200);

  const orphan = await upload(server, alice.token, await png(36, 36), "image/png");
  const fresh = await upload(server, alice.token, await png(37, 37), "image/png");
  await server.rt.db
    .updateTable("media_attachments")
    .set({ updated_at: new Date(Date.now() - 25 * 3600_000) })
    .where("id", "in", [orphan.id, m.id])
    .execute();
  await server.rt.queue.enqueue("media.cleanup", {});
  await server.settle();
  assert.equal((await server.get(`/api/v1/media/${orphan.id}`, { token: alice.token })).status, 404);
  assert.equal(existsSync(localPath(orphan.url)), false);
  assert.equal(existsSync(localPath(orphan.preview_url)), false);
  assert.equal((await server.get(`/api/v1/media/${fresh.id}`, { token: alice.token })).status, 200);
  const redrafted = await server.get(`/api/v1/statuses/${redraft.body.id}`, { token: alice.token });
  assert.equal(redrafted.body.media_attachments[0]?.id, m.id, "attached again, so kept");
  assert.equal(existsSync(localPath(m.url)), true);
  // Run twice: nothing more goes, and one next run stays scheduled.
  await server.rt.queue.enqueue("media.cleanup", {});
  await server.settle();
  const next = await server.rt.db.selectFrom("jobs").select("id").where("type", "=", "media.cleanup").execute();
  assert.equal(next.length, 1);
});

test("delete_media=true removes a deleted status's media at once, earlier versions' too", async () => {
  const a = await upload(server, alice.token, await png(38, 38), "image/png");
  const b = await upload(server, alice.token, await png(39, 39), "image/png");
  const status = await post(server, alice, { status: "gone for good", media_ids: [a.id] });
  const edited = await server.put(`/api/v1/statuses/${status.id}`, {
    token: alice.token,
    json: { status: "gone for good", media_ids: [b.id] },
  });
  assert.equal(edited.status, 200);
  const deleted = await server.delete(`/api/v1/statuses/${status.id}?delete_media=true`, { token: alice.token });
  assert.equal(deleted.status, 200);
  assert.equal(deleted.body.media_attachments[0].id, b.id);
  for (const m of [a, b]) {
    assert.equal(existsSync(localPath(m.url)), false, m.url);
    assert.equal(existsSync(localPath(m.preview_url)), false, m.preview_url);
  }
  const rows = await server.rt.db
    .selectFrom("media_attachments")
    .select("id")
    .where("id", "in", [a.id, b.id])
    .execute();
  assert.deepEqual(rows, []);
  const redraft = await attempt(alice, { status: "redraft", media_ids: [b.id] });
  assert.deepEqual([redraft.status, redraft.body.error], [422, `Validation failed: Media ${b.id} not found`]);
});

test("a deleted account's media, avatar and header are removed by a job", async () => {
  const carol = await server.user("carol");
  const image = (size: number) => png(size, size).then((p) => `data:image/png;base64,${p.toString("base64")}`);
  const profile = await server.patch("/api/v1/accounts/update_credentials", {
    token: carol.token,
    json: { avatar: await image(100), header: await image(150) },
  });
  assert.equal(profile.status, 200);
  const attached = await upload(server, carol.token, await png(40, 40), "image/png");
  const loose = await upload(server, carol.token, await png(41, 41), "image/png");
  await post(server, carol, { status: "with a picture", media_ids: [attached.id] });
  const files = [attached.url, attached.preview_url, loose.url, profile.body.avatar, profile.body.header];
  for (const url of files) assert.equal(existsSync(localPath(url)), true, url);

  await deleteLocalAccount(server.rt, "carol");
  await server.settle();
  for (const url of files) assert.equal(existsSync(localPath(url)), false, url);
  const left = await server.rt.db
    .selectFrom("media_attachments")
    .select("id")
    .where("account_id", "=", carol.accountId)
    .execute();
  assert.deepEqual(left, []);
  const account = await server.get(`/api/v1/accounts/${carol.accountId}`);
  assert.equal(account.status, 410);
  assert.equal((await server.get("/api/v1/accounts/verify_credentials", { token: carol.token })).status, 401);
  assert.equal(
    (
      await server.rt.db
        .selectFrom("accounts")
        .select("avatar_file")
        .where("id", "=", carol.accountId)
        .executeTakeFirst()
    )?.avatar_file,
    null,
  );
});

test("instance: configuration.media_attachments tells the limits and the types", async () => {
  const res = await server.get("/api/v2/instance");
  const m = res.body.configuration.media_attachments;
  assert.equal(m.image_size_limit, 16 * 1024 * 1024);
  assert.equal(m.image_matrix_limit, 4_000_000);
  assert.equal(m.video_size_limit, 99 * 1024 * 1024);
  assert.equal(m.description_limit, 1500);
  assert.ok(m.supported_mime_types.includes("image/webp"));
  assert.equal(m.supported_mime_types.includes("video/mp4"), ffmpeg !== null);
  assert.equal(res.body.configuration.statuses.max_media_attachments, 4);
});

test("an animated GIF becomes a gifv (a silent MP4), processed by a job", { skip: noFfmpeg }, async (t) => {
  const res = await server.post("/api/v2/media", {
    token: alice.token,
    multipart: form({ file: blob(await animatedGif(), "image/gif") }),
  });
  assert.equal(res.status, 202);
  assert.equal(res.body.url, null);
  assert.equal(res.body.type, "gifv");
  assert.equal((await attempt(alice, { status: "too soon", media_ids: [res.body.id] })).status, 422);
  await server.settle();
  const done = await server.get(`/api/v1/media/${res.body.id}`, { token: alice.token });
  assert.equal(done.status, 200);
  assertEntity(t, "MediaAttachment", done.body);
  assert.match(done.body.url, /original\.mp4$/);
  assert.equal(done.body.meta.original.width, 64);
  assert.equal(done.body.meta.original.height, 48);
  assert.equal(typeof done.body.blurhash, "string");
  const file = await download(done.body.url);
  assert.equal(file.headers.get("content-type"), "video/mp4");
  assert.equal(file.data.subarray(4, 8).toString("latin1"), "ftyp");
});

test("video: 202, 206 while processing, then an H.264 MP4 with a poster and its meta", { skip: noFfmpeg }, async () => {
  const res = await server.post("/api/v2/media", {
    token: alice.token,
    multipart: form({ file: blob(video(), "video/x-msvideo"), description: "Test card" }),
  });
  assert.equal(res.status, 202);
  assert.equal(res.body.type, "video");
  assert.equal((await server.get(`/api/v1/media/${res.body.id}`, { token: alice.token })).status, 206);
  await server.settle();
  const done = await server.get(`/api/v1/media/${res.body.id}`, { token: alice.token });
  assert.equal(done.status, 200);
  const m = done.body;
  assert.match(m.url, /original\.mp4$/);
  assert.match(m.preview_url, /small\.jpg$/);
  assert.equal(m.meta.original.width, 320);
  assert.equal(m.meta.original.height, 240);
  assert.equal(m.meta.original.frame_rate, "10/1");
  assert.ok(m.meta.original.duration >= 0.9 && m.meta.original.duration <= 1.2, String(m.meta.original.duration));
  assert.ok(m.meta.original.bitrate > 0);
  assert.deepEqual(m.meta.small, { width: 320, height: 240, size: "320x240", aspect: 1.333333 });
  assert.equal(m.description, "Test card");
  const status = await post(server, alice, { status: "a video", media_ids: [m.id] });
  assert.equal(status.media_attachments[0].type, "video");
  // A video goes alone.
  const img = await upload(server, alice.token, await png(), "image/png");
  const v2 = await upload(server, alice.token, video(), "video/x-msvideo");
  const mixed = await attempt(alice, { status: "mixed", media_ids: [img.id, v2.id] });
  assert.equal(mixed.status, 422);
});

test("audio: WAV becomes MP3, with its duration", { skip: noFfmpeg }, async () => {
  const m = await upload(server, alice.token, audio(), "audio/wav");
  assert.equal(m.type, "audio");
  assert.match(m.url, /original\.mp3$/);
  assert.equal(m.preview_url, null);
  assert.ok(m.meta.original.duration >= 0.9 && m.meta.original.duration <= 1.2);
  const file = await download(m.url);
  assert.equal(file.headers.get("content-type"), "audio/mpeg");
});

test("without ffmpeg: video and audio get a clear 422, images still work, a GIF stays a GIF", async () => {
  const bare = await startServer({ env: { FFMPEG_PATH: "/nonexistent/ffmpeg" } });
  try {
    const u = await bare.user("dave");
    const header = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from("ftypmp42"), Buffer.alloc(64)]);
    const res = await bare.post("/api/v2/media", {
      token: u.token,
      multipart: form({ file: blob(header, "video/mp4") }),
    });
    assert.deepEqual(
      [res.status, res.body.error],
      [422, "Validation failed: Video and audio cannot be processed on this server (no ffmpeg)"],
    );
    const gif = await bare.post("/api/v2/media", {
      token: u.token,
      multipart: form({ file: blob(await animatedGif(), "image/gif") }),
    });
    assert.equal(gif.status, 200);
    assert.equal(gif.body.type, "image");
    assert.match(gif.body.url, /original\.gif$/);
    const types = (await bare.get("/api/v2/instance")).body.configuration.media_attachments.supported_mime_types;
    assert.ok(!types.includes("video/mp4"));
    assert.ok(types.includes("image/jpeg"));
  } finally {
    await bare.close();
  }
});
