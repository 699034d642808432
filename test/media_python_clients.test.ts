// Mastodon.py and toot, the Python clients, upload a picture, describe it, attach it and read it
// back (test/python.ts runs them).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { png } from "./media_files.ts";
import { PYTHON, skipMastodonPy, skipToot, tootSignIn } from "./python.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

const run = promisify(execFile);

let server: TestServer;
let alice: TestUser;
let dir: string;
let picture: string;

before(async () => {
  server = await startServer();
  alice = await server.user("alice");
  dir = mkdtempSync(join(tmpdir(), "rookery-py-"));
  picture = join(dir, "picture.png");
  writeFileSync(picture, await png(120, 80));
});
after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const MASTODON_PY = `
import json, sys
from mastodon import Mastodon
api = Mastodon(access_token=sys.argv[2], api_base_url=sys.argv[1], version_check_mode="none")
media = api.media_post(sys.argv[3], mime_type="image/png", description="From Mastodon.py", focus=(0.5, -0.5))
media = api.media_update(media["id"], description="Described by Mastodon.py")
status = api.status_post("Posted by Mastodon.py", media_ids=[media["id"]])
back = api.status(status["id"])
print(json.dumps([[str(m["id"]), m["type"], m["description"], m["meta"]["focus"]["x"], m["meta"]["focus"]["y"]] for m in back["media_attachments"]]))
`;

test("Mastodon.py: upload, describe, attach, read back", { skip: skipMastodonPy }, async () => {
  const { stdout } = await run(PYTHON, ["-c", MASTODON_PY, server.url, alice.token, picture]);
  const [[id, type, description, x, y]] = JSON.parse(stdout);
  assert.match(id, /^\d+$/);
  assert.deepEqual([type, description, x, y], ["image", "Described by Mastodon.py", 0.5, -0.5]);
});

test("toot: post with a described picture", { skip: skipToot }, async () => {
  tootSignIn(dir, server, alice);
  await run("toot", ["post", "--media", picture, "--description", "From toot", "Posted by toot"], {
    env: { ...process.env, XDG_CONFIG_HOME: dir },
  });
  const statuses = await server.get(`/api/v1/accounts/${alice.accountId}/statuses`, { token: alice.token });
  const posted = statuses.body.find((s: { content: string }) => s.content.includes("Posted by toot"));
  assert.ok(posted, "the status is there");
  assert.deepEqual(
    posted.media_attachments.map((m: { type: string; description: string }) => [m.type, m.description]),
    [["image", "From toot"]],
  );
});
