// The discovery commands, run as an operator runs them: `rookery emoji`, `announcements`, `trends`,
// `suggestions` and `search reindex`, as processes on the default SQLite database.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test as nodeTest } from "node:test";
import { promisify } from "node:util";
import sharp from "sharp";
import { dialectUnderTest } from "./rig.ts";

const run = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), "rookery-discovery-cli-"));
const env = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: "warn", DATABASE_URL: "" };
const rookery = (...args: string[]) => run(process.execPath, ["src/main.ts", ...args], { env });

// The commands run on the default SQLite database; the PostgreSQL pass of the suite skips them.
const test = dialectUnderTest === "sqlite" ? nodeTest : nodeTest.skip;

before(async () => {
  if (dialectUnderTest !== "sqlite") return;
  await rookery("db", "migrate");
  await rookery("accounts", "create", "staff", "--email", "staff@example.test", "--confirmed", "--approve");
});
after(() => rmSync(dataDir, { recursive: true, force: true }));

test("emoji add, list and remove", async () => {
  const file = join(dataDir, "wave.png");
  writeFileSync(
    file,
    await sharp({ create: { width: 16, height: 16, channels: 3, background: "#0af" } })
      .png()
      .toBuffer(),
  );
  assert.match((await rookery("emoji", "add", "wave", file, "--category", "Hands")).stdout, /Added :wave:/);
  await rookery("emoji", "add", "hidden_wave", file, "--unlisted");
  assert.equal((await rookery("emoji", "list")).stdout, ":hidden_wave:\t\tunlisted\n:wave:\tHands\n");
  await assert.rejects(rookery("emoji", "add", "wave", file), (e: { stderr: string }) =>
    /already been taken/.test(e.stderr),
  );
  await rookery("emoji", "remove", "hidden_wave");
  assert.equal((await rookery("emoji", "list")).stdout, ":wave:\tHands\n");
  await assert.rejects(rookery("emoji", "remove", "hidden_wave"), (e: { stderr: string }) =>
    /Not found/.test(e.stderr),
  );
});

test("announcements add, list, unpublish, publish and remove", async () => {
  const added = await rookery("announcements", "add", "Maintenance tonight", "--ends-at", "2999-01-01T00:00:00Z");
  const id = /Added announcement (\d+)/.exec(added.stdout)![1];
  assert.match(
    (await rookery("announcements", "list")).stdout,
    new RegExp(`^${id}\\tfrom .+ until 2999-01-01T00:00:00.000Z\\tMaintenance tonight\\n$`),
  );
  await assert.rejects(
    rookery("announcements", "add", "x", "--publish-at", "soon"),
    (e: { code: number }) => e.code === 2,
  );
  assert.equal((await rookery("announcements", "unpublish", id)).stdout, `Unpublished announcement ${id}.\n`);
  assert.equal((await rookery("announcements", "list")).stdout, `${id}\tunpublished\tMaintenance tonight\n`);
  assert.equal((await rookery("announcements", "publish", id)).stdout, `Published announcement ${id}.\n`);
  assert.match((await rookery("announcements", "list")).stdout, new RegExp(`^${id}\\tfrom `));
  await rookery("announcements", "remove", id);
  assert.equal((await rookery("announcements", "list")).stdout, "");
  await assert.rejects(rookery("announcements", "publish", id), (e: { stderr: string }) => /Not found/.test(e.stderr));
});

test("trends review, allow and deny; suggestions feature; search reindex", async () => {
  assert.equal((await rookery("trends", "review")).stdout, "No hashtag waits for review.\n");
  assert.equal((await rookery("trends", "allow", "#Birds")).stdout, "#Birds may trend.\n");
  assert.equal((await rookery("trends", "deny", "spam")).stdout, "#spam will not trend.\n");
  await assert.rejects(rookery("trends", "allow", "no way"), (e: { stderr: string }) =>
    /Not a valid hashtag/.test(e.stderr),
  );
  assert.match((await rookery("suggestions", "feature", "staff")).stdout, /Featured staff/);
  assert.equal((await rookery("suggestions", "list")).stdout, "staff\n");
  await rookery("suggestions", "unfeature", "staff");
  assert.equal(
    (await rookery("suggestions", "list")).stdout,
    "No accounts are suggested to everyone: add one with `rookery suggestions feature ACCT`.\n",
  );
  assert.equal((await rookery("search", "reindex")).stdout, "Indexed 0 statuses.\n");
});
