// `rookery backup` while the server takes posts, then `rookery restore` into a fresh DATA_DIR and
// a server started on it: everything acknowledged before the backup began is there, with its media
// and the same secret key. On PostgreSQL the database is pg_dump's: the commands say so and carry
// the media and the key.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { post } from "./fixtures.ts";
import { download, png, upload } from "./media_files.ts";
import { dialectUnderTest, startServer, TEST_DATABASE_URL, type TestServer, type TestUser } from "./rig.ts";

const run = promisify(execFile);
const scratch = mkdtempSync(join(tmpdir(), "rookery-backup-"));
let server: TestServer;
let writer: TestUser;

/** Runs `rookery …` as an operator would, on the configuration `env` adds. */
function rookery(env: Record<string, string>, ...args: string[]) {
  return run(process.execPath, ["src/main.ts", ...args], {
    env: { ...process.env, LOG_LEVEL: "warn", SECRET_KEY_BASE: "", ...env },
  });
}

/** The configuration a command needs to find a data directory (and its SQLite file). */
function configOf(dataDir: string): Record<string, string> {
  return { DATA_DIR: dataDir, DATABASE_URL: TEST_DATABASE_URL ?? `sqlite:${join(dataDir, "rookery.sqlite")}` };
}

before(async () => {
  // The secret key is the one the server generates under DATA_DIR, as without SECRET_KEY_BASE.
  server = await startServer({ env: { SECRET_KEY_BASE: "" } });
  writer = await server.user("writer");
});
after(async () => {
  await server.close();
  rmSync(scratch, { recursive: true, force: true });
});

const failure = (pattern: RegExp) => (e: { code: number; stderr: string }) => e.code === 1 && pattern.test(e.stderr);

test("backup under write load, restore into a fresh DATA_DIR, and a server on it has every acknowledged post", async () => {
  const image = await png();
  const media = await upload(server, writer.token, image, "image/png");
  const first = await post(server, writer, { status: "with a picture", media_ids: [media.id] });

  const acknowledged: string[] = [first.id];
  let writing = true;
  const load = (async () => {
    for (let i = 0; writing; i++) {
      const res = await server.post("/api/v1/statuses", { token: writer.token, json: { status: `load ${i}` } });
      assert.equal(res.status, 200, res.text);
      acknowledged.push(res.body.id);
    }
  })();
  while (acknowledged.length < 10) await new Promise((r) => setTimeout(r, 20));

  const dir = join(scratch, "backup");
  const beforeBackup = [...acknowledged];
  const source = { ...configOf(server.rt.config.dataDir) };
  const taken = await rookery(source, "backup", dir);
  writing = false;
  await load;
  assert.ok(acknowledged.length > beforeBackup.length, "posts were acknowledged while the backup ran");

  const manifest = JSON.parse(readFileSync(join(dir, "rookery-backup.json"), "utf8"));
  assert.equal(manifest.database, dialectUnderTest);
  assert.equal(manifest.media, "local");
  assert.equal(manifest.secretKey, true);
  assert.equal(manifest.rookery, "0.1.0");
  if (dialectUnderTest === "sqlite") {
    assert.match(taken.stdout, /^Database: copied \(\d+ pages\)\.\nMedia: copied\.\nSecret key: copied\.\n/);
    assert.match(manifest.migration, /^\d{4}_\w+$/);
    // One self-contained database file: no log files beside it.
    assert.deepEqual(readdirSync(dir).sort(), ["media", "rookery-backup.json", "rookery.sqlite", "secret_key_base"]);
  } else {
    assert.match(taken.stdout, /^Database: PostgreSQL is not copied here\. Dump it with pg_dump/);
    assert.match(taken.stdout, /pg_dump --format=custom/);
    assert.equal(manifest.migration, null);
    assert.deepEqual(readdirSync(dir).sort(), ["media", "rookery-backup.json", "secret_key_base"]);
  }
  assert.deepEqual(
    readFileSync(join(dir, "secret_key_base")),
    readFileSync(join(server.rt.config.dataDir, "secret_key_base")),
  );

  // A second backup into the same folder is refused.
  await assert.rejects(rookery(source, "backup", dir), failure(/backup is not empty|is not empty/));

  const restoredDir = join(scratch, "restored");
  const target = configOf(restoredDir);
  const restored = await rookery(target, "restore", dir);
  assert.match(restored.stdout, /Media: restored\.\nSecret key: restored\./);
  assert.match(restored.stdout, /The backup was taken by Rookery 0\.1\.0/);
  assert.deepEqual(readFileSync(join(restoredDir, "secret_key_base")), readFileSync(join(dir, "secret_key_base")));
  const mediaPath = new URL(first.media_attachments[0].url).pathname;
  assert.deepEqual(
    readFileSync(join(restoredDir, "media", mediaPath.replace(/^\/system\//, ""))),
    (await download(first.media_attachments[0].url)).data,
  );
  if (dialectUnderTest === "postgres") {
    assert.match(restored.stdout, /restore PostgreSQL with pg_restore/);
    return;
  }

  const again = await startServer({ env: { ...target, SECRET_KEY_BASE: "" } });
  try {
    for (const id of beforeBackup) {
      const res = await again.get(`/api/v1/statuses/${id}`, { token: writer.token });
      assert.equal(res.status, 200, `status ${id}: ${res.text}`);
    }
    const withMedia = await again.get(`/api/v1/statuses/${first.id}`, { token: writer.token });
    assert.equal(withMedia.body.content, "<p>with a picture</p>");
    const file = await download(again.url + mediaPath);
    assert.equal(file.status, 200);
    assert.deepEqual(file.data, (await download(first.media_attachments[0].url)).data);
  } finally {
    await again.close();
  }
});

test("restore refuses a folder that is not a backup, and a DATA_DIR in use unless --force", async () => {
  const notBackup = join(scratch, "not-a-backup");
  mkdirSync(notBackup);
  const fresh = configOf(join(scratch, "fresh"));
  await assert.rejects(rookery(fresh, "restore", notBackup), failure(/it is not a Rookery backup/));

  const dir = join(scratch, "second");
  await rookery(configOf(server.rt.config.dataDir), "backup", dir);
  const occupied = join(scratch, "occupied");
  mkdirSync(occupied);
  writeFileSync(join(occupied, "secret_key_base"), "an older key");
  await assert.rejects(
    rookery(configOf(occupied), "restore", dir),
    failure(/is not empty: restore into a fresh DATA_DIR, or give --force/),
  );
  assert.equal(readFileSync(join(occupied, "secret_key_base"), "utf8"), "an older key");
  await rookery(configOf(occupied), "restore", dir, "--force");
  assert.deepEqual(readFileSync(join(occupied, "secret_key_base")), readFileSync(join(dir, "secret_key_base")));
  await assert.rejects(rookery(fresh, "restore"), (e: { code: number }) => e.code === 2);
});
