// Other servers' media kept on our storage: a status, an avatar, a header and a custom emoji that
// arrive through the inbox are downloaded by a job (through src/net, within the upload limits),
// processed as uploads are and served from /system/, `remote_url` staying the origin's. What is
// refused (not an image, too large, a private address, a rejected server) is never stored and stays
// shown by its remote URL; what is not kept (dropped by retention, skipped, a server error) is
// fetched through /media_proxy/:id/:style when it is asked for.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import sharp from "sharp";
import { newId } from "../src/domain/ids.ts";
import { mediaStorage } from "../src/media/storage.ts";
import { cacheAttachment } from "../src/services/media/remote_cache.ts";
import { removeCachedMedia } from "../src/services/media/remote_retention.ts";
import { blockDomain, unblockDomain } from "../src/services/moderation/domain_blocks.ts";
import { download, photo, png } from "./media_files.ts";
import { type RemoteActor, type RemoteServer, signedPostHeaders, startRemoteServer } from "./remote_actors.ts";
import { dialectUnderTest, startServer, type TestServer, type TestUser } from "./rig.ts";

let server: TestServer;
let alice: TestUser;
let remote: RemoteServer;
let mallory: RemoteActor;
let avatarPng: Buffer;

before(async () => {
  // Images up to 400 KB here, so that a too large one is quick to make.
  server = await startServer({
    env: { ALLOW_PRIVATE_ADDRESSES: "true", MAX_IMAGE_SIZE: String(400 * 1024), MEDIA_CACHE_RETENTION_DAYS: "30" },
  });
  alice = await server.user("alice");
  remote = await startRemoteServer();
  mallory = remote.actor("mallory");
  avatarPng = await png(120, 120);
  remote.files.set("/avatars/mallory.png", { type: "image/png", body: avatarPng });
  remote.files.set("/headers/mallory.jpg", { type: "image/jpeg", body: await photo(900, 300) });
  remote.files.set("/emojis/wave.png", { type: "image/png", body: await png(64, 64) });
  remote.profiles.set("mallory", {
    icon: { type: "Image", mediaType: "image/png", url: `${remote.origin}/avatars/mallory.png` },
    image: { type: "Image", mediaType: "image/jpeg", url: `${remote.origin}/headers/mallory.jpg` },
  });
});
after(async () => {
  await server.close();
  await remote.close();
});

async function send(activity: unknown): Promise<void> {
  const body = JSON.stringify(activity);
  const inbox = `${server.url}/inbox`;
  const res = await fetch(inbox, {
    method: "POST",
    headers: signedPostHeaders(mallory, inbox, body, "draft-cavage"),
    body,
  });
  await res.arrayBuffer();
  assert.equal(res.status, 202);
}

let n = 0;
/** A Create of a public Note of mallory's with the attachments at `paths` (and their types). */
function create(text: string, files: [path: string, type: string][], o: { published?: Date; emoji?: boolean } = {}) {
  n++;
  const note = `${mallory.id}/statuses/${n}`;
  const published = (o.published ?? new Date()).toISOString();
  return {
    "@context": ["https://www.w3.org/ns/activitystreams", { toot: "http://joinmastodon.org/ns#", Emoji: "toot:Emoji" }],
    id: `${note}/activity`,
    type: "Create",
    actor: mallory.id,
    published,
    to: ["https://www.w3.org/ns/activitystreams#Public"],
    object: {
      id: note,
      type: "Note",
      published,
      attributedTo: mallory.id,
      to: ["https://www.w3.org/ns/activitystreams#Public"],
      content: `<p>${text}</p>`,
      attachment: files.map(([path, type]) => ({
        type: "Document",
        mediaType: type,
        url: `${remote.origin}${path}`,
        name: "a picture",
      })),
      tag: o.emoji
        ? [{ type: "Emoji", name: ":wave:", icon: { type: "Image", url: `${remote.origin}/emojis/wave.png` } }]
        : [],
    },
  };
}

/** Sends a Create, waits for its jobs, and answers the status as alice sees it. */
async function deliver(activity: ReturnType<typeof create>): Promise<any> {
  await send(activity);
  await server.settle();
  const row = await server.rt.db
    .selectFrom("statuses")
    .select("id")
    .where("uri", "=", activity.object.id)
    .executeTakeFirstOrThrow();
  const res = await server.get(`/api/v1/statuses/${row.id}`, { token: alice.token });
  assert.equal(res.status, 200, res.text);
  return res.body;
}

const ours = (url: string | null) => url?.startsWith(`${server.url}/system/`) ?? false;
const localFile = (url: string) =>
  join(server.rt.config.dataDir, "media", new URL(url).pathname.replace(/^\/system\//, ""));

test("an image, the author's avatar and header and a custom emoji are served from our storage", async () => {
  const original = await photo(800, 600);
  remote.files.set("/files/gull.jpg", { type: "image/jpeg", body: original });
  const status = await deliver(create("A gull :wave:", [["/files/gull.jpg", "image/jpeg"]], { emoji: true }));
  const [media] = status.media_attachments;
  assert.equal(media.type, "image");
  assert.equal(media.remote_url, `${remote.origin}/files/gull.jpg`);
  assert.ok(ours(media.url), media.url);
  assert.ok(ours(media.preview_url), media.preview_url);
  assert.match(media.blurhash, /^[\w#$%*+,\-.:;=?@[\]^{|}~]{6,}$/);
  // The photo is turned by its EXIF orientation: ours is upright, without its metadata.
  assert.deepEqual(media.meta.original, { width: 600, height: 800, size: "600x800", aspect: 0.75 });
  const served = await download(media.url);
  assert.equal(served.status, 200);
  assert.equal(served.headers.get("content-type"), "image/jpeg");
  const row = await server.rt.db
    .selectFrom("media_attachments")
    .selectAll()
    .where("id", "=", media.id)
    .executeTakeFirstOrThrow();
  assert.equal(row.remote_state, "cached");
  assert.deepEqual(served.data, await mediaStorage(server.rt.config).get(row.file_key!));
  const decoded = await sharp(served.data).metadata();
  assert.deepEqual([decoded.width, decoded.height, decoded.exif], [600, 800, undefined]);

  const account = status.account;
  assert.ok(ours(account.avatar), account.avatar);
  assert.ok(ours(account.avatar_static), account.avatar_static);
  assert.ok(ours(account.header), account.header);
  const avatar = await sharp((await download(account.avatar)).data).metadata();
  // A picture with nothing to change (upright, no metadata, small enough) is kept as it came, and
  // one no larger than a preview is its own.
  remote.files.set("/files/plain.png", { type: "image/png", body: avatarPng });
  const plain = await deliver(create("Plain", [["/files/plain.png", "image/png"]]));
  assert.ok(ours(plain.media_attachments[0].url));
  assert.deepEqual((await download(plain.media_attachments[0].url)).data, avatarPng);
  assert.equal(plain.media_attachments[0].preview_url, plain.media_attachments[0].url);
  assert.deepEqual([avatar.width, avatar.height], [120, 120]);

  assert.equal(status.emojis.length, 1);
  assert.equal(status.emojis[0].shortcode, "wave");
  assert.ok(ours(status.emojis[0].url), status.emojis[0].url);
  assert.ok(ours(status.emojis[0].static_url), status.emojis[0].static_url);
  assert.equal((await download(status.emojis[0].url)).status, 200);
});

test("a file that is no image, too large or gone is not stored, and stays shown by its remote URL", async () => {
  remote.files.set("/files/page.png", {
    type: "image/png",
    body: Buffer.from("<html><script>alert(1)</script></html>"),
  });
  const noise = await sharp({
    create: {
      width: 600,
      height: 600,
      channels: 3,
      background: "#808080",
      noise: { type: "gaussian", mean: 128, sigma: 60 },
    },
  })
    .png()
    .toBuffer();
  remote.files.set("/files/huge.png", { type: "image/png", body: noise });
  const big = remote.files.get("/files/huge.png")!.body;
  assert.ok(big.length > 400 * 1024, `${big.length} bytes is not too large`);
  const status = await deliver(
    create("Hostile", [
      ["/files/page.png", "image/png"],
      ["/files/huge.png", "image/png"],
      ["/files/missing.png", "image/png"],
    ]),
  );
  assert.equal(status.media_attachments.length, 3);
  for (const media of status.media_attachments) {
    assert.equal(media.url, media.remote_url);
    assert.equal(media.preview_url, media.remote_url);
  }
  const rows = await server.rt.db
    .selectFrom("media_attachments")
    .select(["remote_state", "file_key", "preview_key"])
    .where("status_id", "=", status.id)
    .execute();
  assert.deepEqual(
    rows.map((r) => [r.remote_state, r.file_key, r.preview_key]),
    [
      ["failed", null, null],
      ["failed", null, null],
      ["failed", null, null],
    ],
  );
  // The proxy sends whoever asks to the remote URL, and never fetches them again.
  const before = remote.fileRequests.count;
  const proxied = await server.get(`/media_proxy/${status.media_attachments[0].id}/original`);
  assert.equal(proxied.status, 302);
  assert.equal(proxied.headers.get("location"), status.media_attachments[0].remote_url);
  assert.equal(remote.fileRequests.count, before);
});

test("a private address is never fetched from", async () => {
  const closed = await startServer();
  try {
    const rt = closed.rt;
    const now = new Date();
    const accountId = newId();
    await rt.db
      .insertInto("accounts")
      .values({
        id: accountId,
        username: "far",
        domain: "far.example",
        acct_key: "far@far.example",
        uri: "https://far.example/users/far",
        created_at: now,
        updated_at: now,
      } as never)
      .execute();
    const statusId = newId();
    await rt.db
      .insertInto("statuses")
      .values({
        id: statusId,
        uri: "https://far.example/statuses/1",
        account_id: accountId,
        local: false,
        visibility: "public",
        content: "",
        conversation_id: statusId,
        created_at: now,
        updated_at: now,
      } as never)
      .execute();
    for (const url of [`${remote.origin}/files/gull.jpg`, "https://127.0.0.1:1/x.png", "https://[::1]/x.png"]) {
      const id = newId();
      await rt.db
        .insertInto("media_attachments")
        .values({
          id,
          account_id: accountId,
          status_id: statusId,
          position: 0,
          type: "image",
          processing: "done",
          file_size: 0,
          meta: "{}",
          remote_url: url,
          remote_state: "pending",
          created_at: now,
          updated_at: now,
        })
        .execute();
      const row = await rt.db
        .selectFrom("media_attachments")
        .selectAll()
        .where("id", "=", id)
        .executeTakeFirstOrThrow();
      assert.equal(await cacheAttachment(rt, row), false, url);
      const after = await rt.db
        .selectFrom("media_attachments")
        .selectAll()
        .where("id", "=", id)
        .executeTakeFirstOrThrow();
      assert.deepEqual([after.remote_state, after.file_key], ["failed", null], url);
    }
  } finally {
    await closed.close();
  }
});

test("a server error leaves the attachment to be fetched when it is asked for", async () => {
  remote.files.set("/files/later.jpg", { type: "text/plain", body: Buffer.from("busy"), status: 503 });
  const status = await deliver(create("Later", [["/files/later.jpg", "image/jpeg"]]));
  const [media] = status.media_attachments;
  assert.equal(media.url, `${server.url}/media_proxy/${media.id}/original`);
  assert.equal(media.preview_url, `${server.url}/media_proxy/${media.id}/small`);
  assert.equal(media.remote_url, `${remote.origin}/files/later.jpg`);
  remote.files.set("/files/later.jpg", { type: "image/jpeg", body: await photo(300, 200) });
  const proxied = await server.get(`/media_proxy/${media.id}/small`);
  assert.equal(proxied.status, 302);
  const location = proxied.headers.get("location")!;
  assert.ok(ours(location), location);
  assert.match(location, /\/small\.jpg$/);
  assert.equal((await download(location)).status, 200);
  const cached = await server.get(`/api/v1/statuses/${status.id}`, { token: alice.token });
  assert.ok(ours(cached.body.media_attachments[0].url));
});

test("the media proxy answers 404 for what is no remote attachment of a status", async () => {
  for (const path of [
    "/media_proxy/1/original",
    "/media_proxy/abc/original",
    "/media_proxy/99999999999999999999999/small",
  ]) {
    const res = await server.get(path);
    assert.equal(res.status, 404, path);
    assert.deepEqual(res.body, { error: "Record not found" });
  }
  const [some] = await server.rt.db.selectFrom("media_attachments").select("id").limit(1).execute();
  assert.equal((await server.get(`/media_proxy/${some.id}/large`)).status, 404);
});

test("a status older than the retention period is not downloaded until asked for", async () => {
  remote.files.set("/files/old.png", { type: "image/png", body: await png(40, 30) });
  const requests = remote.fileRequests.count;
  const status = await deliver(
    create("Long ago", [["/files/old.png", "image/png"]], { published: new Date(Date.now() - 60 * 86_400_000) }),
  );
  const [media] = status.media_attachments;
  assert.equal(media.url, `${server.url}/media_proxy/${media.id}/original`);
  assert.equal(remote.fileRequests.count, requests);
  const res = await server.get(`/media_proxy/${media.id}/original`);
  assert.equal(res.status, 302);
  assert.match(res.headers.get("location")!, /\/original\.png$/);
  assert.equal(remote.fileRequests.count, requests + 1);
});

test("retention drops cached files, keeps the rows, and the media are fetched again when asked for", async () => {
  remote.files.set("/files/kept.png", { type: "image/png", body: await png(50, 50) });
  const status = await deliver(create("Kept a while", [["/files/kept.png", "image/png"]]));
  const [media] = status.media_attachments;
  assert.ok(ours(media.url));
  const files = [localFile(media.url), localFile(media.preview_url)];
  assert.ok(files.every(existsSync));
  // Forty days on, the daily job drops it (MEDIA_CACHE_RETENTION_DAYS is 30 here).
  await server.rt.db
    .updateTable("media_attachments")
    .set({ created_at: new Date(Date.now() - 40 * 86_400_000) })
    .where("id", "=", media.id)
    .execute();
  await server.rt.queue.enqueue("media.expire_cache", {});
  await server.settle();
  assert.ok(files.every((f) => !existsSync(f)));
  const after = await server.get(`/api/v1/statuses/${status.id}`, { token: alice.token });
  assert.equal(after.body.media_attachments[0].url, `${server.url}/media_proxy/${media.id}/original`);
  assert.equal(after.body.media_attachments[0].remote_url, media.remote_url);
  const res = await server.get(`/media_proxy/${media.id}/original`);
  assert.equal(res.status, 302);
  const location = res.headers.get("location")!;
  assert.ok(ours(location) && location !== media.url, location);
  const served = await sharp((await download(location)).data).metadata();
  assert.deepEqual([served.width, served.height], [50, 50]);
  // The next daily run is waiting.
  const next = await server.rt.db
    .selectFrom("jobs")
    .select("run_at")
    .where("type", "=", "media.expire_cache")
    .executeTakeFirstOrThrow();
  assert.ok(new Date(next.run_at).getTime() > Date.now() + 23 * 3600_000);
});

test("removing cached media with pruned profiles counts the files and bytes freed", async () => {
  const before = await removeCachedMedia(server.rt, { olderThanDays: 0, pruneProfiles: false });
  assert.ok(before.attachments >= 2, JSON.stringify(before));
  assert.ok(before.files >= 4 && before.bytes > 0, JSON.stringify(before));
  const account = await server.rt.db
    .selectFrom("accounts")
    .select(["id", "avatar_file", "header_file", "avatar_remote_url"])
    .where("uri", "=", mallory.id)
    .executeTakeFirstOrThrow();
  assert.ok(account.avatar_file && account.header_file);
  // Nobody here follows mallory: with profiles, her images go too.
  await server.rt.db
    .updateTable("accounts")
    .set({ updated_at: new Date(Date.now() - 86_400_000) })
    .where("id", "=", account.id)
    .execute();
  const pruned = await removeCachedMedia(server.rt, { olderThanDays: 0, pruneProfiles: true });
  assert.equal(pruned.profiles, 1);
  assert.equal(pruned.files, 2);
  const profile = await server.get(`/api/v1/accounts/${account.id}`, { token: alice.token });
  assert.equal(profile.body.avatar, account.avatar_remote_url);
});

test("rookery media remove, as an operator runs it", { skip: dialectUnderTest !== "sqlite" }, async () => {
  remote.files.set("/files/cli.png", { type: "image/png", body: await png(70, 70) });
  const status = await deliver(create("For the command", [["/files/cli.png", "image/png"]]));
  const file = localFile(status.media_attachments[0].url);
  assert.ok(existsSync(file));
  const run = promisify(execFile);
  const rookery = (...args: string[]) =>
    run(process.execPath, ["src/main.ts", ...args], {
      env: {
        ...process.env,
        DATA_DIR: server.rt.config.dataDir,
        DATABASE_URL: server.rt.config.databaseUrl,
        LOG_LEVEL: "warn",
      },
    });
  const kept = await rookery("media", "remove");
  assert.match(kept.stdout, /^Removed 0 files \(0\.0 KiB\) of 0 remote media attachments, older than 7 days\.\n$/);
  assert.ok(existsSync(file));
  const removed = await rookery("media", "remove", "--days", "0", "--prune-profiles");
  assert.match(
    removed.stdout,
    /^Removed 1 file \([\d.]+ KiB\) of 1 remote media attachment and the images of 0 remote accounts, older than 0 days\.\n$/,
  );
  assert.equal(existsSync(file), false);
  await assert.rejects(rookery("media", "remove", "--days", "soon"), /--days takes a whole number/);
});

test("nothing is downloaded from a server whose media are rejected", async () => {
  const domain = new URL(remote.origin).hostname;
  await blockDomain(server.rt, { domain, severity: "noop", rejectMedia: true });
  try {
    remote.files.set("/files/rejected.png", { type: "image/png", body: await png(20, 20) });
    const requests = remote.fileRequests.count;
    const status = await deliver(create("Not here", [["/files/rejected.png", "image/png"]], { emoji: true }));
    assert.deepEqual(status.media_attachments, []);
    // Her avatar's copy was dropped above: a refresh of her profile does not fetch it again.
    const account = await server.rt.db
      .selectFrom("accounts")
      .select("id")
      .where("uri", "=", mallory.id)
      .executeTakeFirstOrThrow();
    await server.rt.queue.enqueue("media.cache", { accountId: account.id });
    await server.settle();
    assert.equal(remote.fileRequests.count, requests);
  } finally {
    await unblockDomain(server.rt, domain);
  }
});
