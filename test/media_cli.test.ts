// `rookery media usage` and `rookery media remove-orphans`, run as an operator runs them, on the
// SQLite database of a running server.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, test as nodeTest } from "node:test";
import { promisify } from "node:util";
import { png, upload } from "./media_files.ts";
import { dialectUnderTest, startServer, type TestServer } from "./rig.ts";

const run = promisify(execFile);
// The commands run on the server's SQLite file; the PostgreSQL pass of the suite skips them.
const test = dialectUnderTest === "sqlite" ? nodeTest : nodeTest.skip;
let server: TestServer;

before(async () => {
  server = await startServer();
});
after(() => server.close());

const rookery = (...args: string[]) =>
  run(process.execPath, ["src/main.ts", ...args], {
    env: {
      ...process.env,
      DATA_DIR: server.rt.config.dataDir,
      DATABASE_URL: server.rt.config.databaseUrl,
      LOG_LEVEL: "warn",
    },
  });

test("media usage, then remove-orphans with a progress bar", async () => {
  const user = await server.user("alice");
  const kept = await upload(server, user.token, await png(50, 50), "image/png");
  const old = await upload(server, user.token, await png(60, 60), "image/png");
  await server.post("/api/v1/statuses", { token: user.token, json: { status: "kept", media_ids: [kept.id] } });
  await server.rt.db
    .updateTable("media_attachments")
    .set({ updated_at: new Date(Date.now() - 48 * 3600_000) })
    .execute();

  const usage = await rookery("media", "usage");
  assert.match(usage.stdout, /^Storage: local disk\n/);
  assert.match(usage.stdout, /\nimage\tattached\t1\t[\d.]+ KiB\n/);
  assert.match(usage.stdout, /\nimage\tunattached\t1\t[\d.]+ KiB\n/);
  assert.match(usage.stdout, /\ntotal\t\t2\t/);

  const removed = await rookery("media", "remove-orphans");
  assert.equal(removed.stdout, "Removed 1 media attachment older than 24 hours.\n");
  assert.match(removed.stderr, /Removing \[#{30}\] 1\/1 \(100%\)/);
  const file = join(server.rt.config.dataDir, "media", new URL(old.url).pathname.replace(/^\/system\//, ""));
  assert.equal(existsSync(file), false);
  const left = await server.rt.db.selectFrom("media_attachments").select("id").execute();
  assert.deepEqual(
    left.map((r) => r.id),
    [kept.id],
  );
  await assert.rejects(rookery("media", "nonsense"), /Unknown media command/);
});
