// Media in S3-compatible storage, against the in-process S3 server of test/s3_server.ts (which
// verifies every request's SigV4 signature): uploads, processing by a job from the bucket, avatars,
// deletion, public URLs and a CDN alias.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { AwsClient } from "aws4fetch";
import { loadConfig } from "../src/config.ts";
import { mediaStorage } from "../src/media/storage.ts";
import { deleteLocalAccount } from "../src/services/moderation/admin_accounts.ts";
import { blob, download, form, noFfmpeg, photo, png, upload, video } from "./media_files.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";
import { type S3TestServer, startS3Server } from "./s3_server.ts";

const credentials = {
  bucket: "rookery-media",
  accessKeyId: "AKIDROOKERY",
  secretAccessKey: "s3cr3t-key",
  region: "eu-west-1",
};
let s3: S3TestServer;
let server: TestServer;
let alice: TestUser;

before(async () => {
  s3 = await startS3Server(credentials);
  server = await startServer({
    env: {
      S3_ENABLED: "true",
      S3_BUCKET: credentials.bucket,
      S3_ENDPOINT: s3.endpoint,
      S3_REGION: credentials.region,
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      S3_PERMISSION: "public-read",
    },
  });
  alice = await server.user("alice");
});
after(async () => {
  await server.close();
  await s3.close();
});

const keyOf = (url: string) => url.slice(`${s3.endpoint}/${credentials.bucket}/`.length);

test("the test S3 server refuses a wrong signature and unsigned writes", async () => {
  const wrong = new AwsClient({ ...credentials, secretAccessKey: "not-the-key", service: "s3" });
  const res = await wrong.fetch(`${s3.endpoint}/${credentials.bucket}/x.txt`, { method: "PUT", body: "x" });
  assert.equal(res.status, 403);
  assert.ok(s3.refused.at(-1)?.endsWith("signature does not match"));
  const anonymous = await fetch(`${s3.endpoint}/${credentials.bucket}/x.txt`, { method: "PUT", body: "x" });
  assert.equal(anonymous.status, 403);
  assert.equal(s3.objects.size, 0);
});

test("an image is stored in the bucket, public, with its type and cache headers; deleting removes it", async () => {
  const res = await server.post("/api/v2/media", {
    token: alice.token,
    multipart: form({ file: blob(await photo(320, 240), "image/jpeg") }),
  });
  assert.equal(res.status, 200);
  const m = res.body;
  assert.ok(m.url.startsWith(`${s3.endpoint}/${credentials.bucket}/media_attachments/`), m.url);
  const stored = s3.objects.get(keyOf(m.url));
  assert.equal(stored?.contentType, "image/jpeg");
  assert.equal(stored?.publicRead, true);
  assert.equal(stored?.cacheControl, "public, max-age=31536000, immutable");
  assert.ok(s3.objects.has(keyOf(m.preview_url)));
  const file = await download(m.url);
  assert.equal(file.status, 200);
  assert.equal(file.headers.get("content-type"), "image/jpeg");
  assert.equal((await server.delete(`/api/v1/media/${m.id}`, { token: alice.token })).status, 200);
  assert.equal(s3.objects.has(keyOf(m.url)), false);
  assert.equal(s3.objects.has(keyOf(m.preview_url)), false);
  assert.deepEqual(s3.refused, [s3.refused[0]], "Rookery's own requests were all signed right");
});

test("an avatar goes to the bucket too", async () => {
  const data = `data:image/png;base64,${(await png(120, 120)).toString("base64")}`;
  const res = await server.patch("/api/v1/accounts/update_credentials", { token: alice.token, json: { avatar: data } });
  assert.equal(res.status, 200);
  assert.ok(res.body.avatar.startsWith(`${s3.endpoint}/${credentials.bucket}/accounts/avatars/`), res.body.avatar);
  assert.equal(s3.objects.get(keyOf(res.body.avatar))?.contentType, "image/png");
});

test("delete_media=true and a deleted account take their files out of the bucket", async () => {
  const dave = await server.user("dave");
  const first = await upload(server, dave.token, await png(50, 50), "image/png");
  const status = await server.post("/api/v1/statuses", {
    token: dave.token,
    json: { status: "s3", media_ids: [first.id] },
  });
  assert.equal(status.status, 200);
  const deleted = await server.delete(`/api/v1/statuses/${status.body.id}?delete_media=1`, { token: dave.token });
  assert.equal(deleted.status, 200);
  assert.equal(s3.objects.has(keyOf(first.url)), false);
  assert.equal(s3.objects.has(keyOf(first.preview_url)), false);

  const loose = await upload(server, dave.token, await png(51, 51), "image/png");
  const data = `data:image/png;base64,${(await png(90, 90)).toString("base64")}`;
  const profile = await server.patch("/api/v1/accounts/update_credentials", {
    token: dave.token,
    json: { avatar: data },
  });
  const keys = [loose.url, loose.preview_url, profile.body.avatar].map(keyOf);
  for (const key of keys) assert.ok(s3.objects.has(key), key);
  await deleteLocalAccount(server.rt, "dave");
  await server.settle();
  for (const key of keys) assert.equal(s3.objects.has(key), false, key);
});

test("a video waits in the bucket, and the job processes it from there", { skip: noFfmpeg }, async () => {
  const m = await upload(server, alice.token, video(), "video/x-msvideo");
  assert.equal(m.type, "video");
  assert.equal(s3.objects.get(keyOf(m.url))?.contentType, "video/mp4");
  assert.equal(
    [...s3.objects.keys()].some((k) => k.startsWith("pending/")),
    false,
    "the upload is removed once processed",
  );
});

test("S3_ALIAS_HOST: files are linked through the CDN", () => {
  const config = loadConfig({
    S3_ENABLED: "true",
    S3_BUCKET: "b",
    AWS_ACCESS_KEY_ID: "a",
    AWS_SECRET_ACCESS_KEY: "s",
    S3_ALIAS_HOST: "media.example.com",
  });
  assert.equal(
    mediaStorage(config).url("media_attachments/x/original.jpg"),
    "https://media.example.com/media_attachments/x/original.jpg",
  );
  const aws = loadConfig({ S3_ENABLED: "true", S3_BUCKET: "b", AWS_ACCESS_KEY_ID: "a", AWS_SECRET_ACCESS_KEY: "s" });
  assert.equal(mediaStorage(aws).url("k.jpg"), "https://b.s3.us-east-1.amazonaws.com/k.jpg");
  assert.throws(() => loadConfig({ S3_ENABLED: "true" }), /S3_ENABLED needs S3_BUCKET/);
});
