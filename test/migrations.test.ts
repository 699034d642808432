// The migration files: one sequence of numbers, each used once, in names the migrator orders right;
// and the migrator telling its progress.
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { migrate, openDatabase } from "../src/db/index.ts";
import { captureLogs, stopCapturingLogs } from "./log_capture.ts";

const FOLDER = fileURLToPath(new URL("../src/db/migrations/", import.meta.url));

/** What is wrong with a folder of migration file names: each problem as a sentence. */
function problems(names: string[]): string[] {
  const found: string[] = [];
  const byNumber = new Map<string, string[]>();
  for (const name of names) {
    const number = /^(\d{4})_[a-z0-9]+(?:_[a-z0-9]+)*\.ts$/.exec(name)?.[1];
    if (!number) {
      found.push(`${name} is not named NNNN_name.ts`);
      continue;
    }
    byNumber.set(number, [...(byNumber.get(number) ?? []), name]);
  }
  for (const [number, files] of byNumber) {
    if (files.length > 1) found.push(`${number} is used by ${files.sort().join(", ")}`);
  }
  return found;
}

test("every migration is named NNNN_name.ts, and no number is used twice", () => {
  const names = readdirSync(FOLDER);
  assert.ok(names.includes("0001_core.ts"), `read ${FOLDER}`);
  assert.deepEqual(problems(names), []);
});

test("the check finds duplicate numbers and names out of form", () => {
  assert.deepEqual(problems(["0001_core.ts", "0002_a.ts", "0002_b.ts", "0003_c.ts"]), [
    "0002 is used by 0002_a.ts, 0002_b.ts",
  ]);
  assert.deepEqual(
    problems(["0001_core.ts", "001_short.ts", "0004-dash.ts", "0005_Upper.ts", "0006_x.js", "notes.md"]),
    [
      "001_short.ts is not named NNNN_name.ts",
      "0004-dash.ts is not named NNNN_name.ts",
      "0005_Upper.ts is not named NNNN_name.ts",
      "0006_x.js is not named NNNN_name.ts",
      "notes.md is not named NNNN_name.ts",
    ],
  );
});

test("migrating a database tells each step as it starts and ends, numbered", async () => {
  const dir = mkdtempSync(join(tmpdir(), "rookery-migrate-"));
  const records = await captureLogs(["rookery", "db"], "info");
  const connection = await openDatabase(`sqlite:${join(dir, "rookery.sqlite")}`, { sqliteCheckpoints: false });
  try {
    const applied = await migrate(connection.db);
    const total = readdirSync(FOLDER).length;
    assert.equal(applied.length, total);
    const lines = records.map((r) => r.message.join(""));
    assert.equal(lines[0], `Applying migration 0001_core (1 of ${total})`);
    assert.match(lines[1], /^Applied 0001_core \(1 of \d+\) in \d+ ms$/);
    assert.equal(lines.length, 2 * total);
    assert.deepEqual(await migrate(connection.db), []);
    assert.equal(records.length, 2 * total);
  } finally {
    await stopCapturingLogs();
    await connection.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
