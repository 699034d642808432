// A real client library against media: masto.js uploads a picture (and a video, waiting while it is
// processed), describes it, attaches it, edits its description and reads it all back.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createRestAPIClient, type mastodon } from "masto";
import { noFfmpeg, photo, video } from "./media_files.ts";
import { startServer, type TestServer } from "./rig.ts";

let server: TestServer;
let masto: mastodon.rest.Client;

before(async () => {
  server = await startServer();
  const user = await server.user("alice");
  masto = createRestAPIClient({ url: server.url, accessToken: user.token });
});
after(() => server.close());

test("masto.js: upload a picture, describe it, attach it, edit it and read it back", async () => {
  const file = new Blob([new Uint8Array(await photo(500, 300))], { type: "image/jpeg" });
  const media = await masto.v2.media.create({ file, description: "A test photo", focus: "0.1,0.2" });
  assert.equal(media.type, "image");
  assert.equal(media.description, "A test photo");
  assert.match(media.url ?? "", /\/system\/media_attachments\/.+\/original\.jpg$/);
  assert.deepEqual(media.meta?.focus, { x: 0.1, y: 0.2 });

  const described = await masto.v1.media.$select(media.id).update({ description: "A test photo, described" });
  assert.equal(described.description, "A test photo, described");

  const status = await masto.v1.statuses.create({ status: "With a picture", mediaIds: [media.id], sensitive: true });
  assert.equal(status.sensitive, true);
  assert.deepEqual(
    status.mediaAttachments.map((m) => [m.id, m.type, m.description]),
    [[media.id, "image", "A test photo, described"]],
  );
  const fetched = await masto.v1.statuses.$select(status.id).fetch();
  assert.equal(fetched.mediaAttachments[0]?.url, media.url);
  assert.equal(fetched.mediaAttachments[0]?.blurhash, media.blurhash);

  const edited = await masto.v1.statuses.$select(status.id).update({
    status: "With a picture",
    mediaIds: [media.id],
    mediaAttributes: [{ id: media.id, description: "Edited description" }],
  });
  assert.equal(edited.mediaAttachments[0]?.description, "Edited description");
  const history = await masto.v1.statuses.$select(status.id).history.list();
  assert.deepEqual(
    history.map((v) => v.mediaAttachments.map((m) => m.description)),
    [["A test photo, described"], ["Edited description"]],
  );
});

test("masto.js: a video is polled until processed, then attached", { skip: noFfmpeg }, async () => {
  const file = new Blob([new Uint8Array(video())], { type: "video/x-msvideo" });
  const media = await masto.v2.media.create({ file });
  assert.equal(media.type, "video");
  assert.match(media.url ?? "", /original\.mp4$/);
  const status = await masto.v1.statuses.create({ status: "A video", mediaIds: [media.id] });
  assert.equal(status.mediaAttachments[0]?.type, "video");
});
