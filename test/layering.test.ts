// The one-way flow of data: serializers render what they are given. They neither read the database
// nor wait for anything, so every load is a batched loader in src/services.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";

const dir = new URL("../src/serializers/", import.meta.url);

test("no serializer reads the database or waits for a load", () => {
  const offending = readdirSync(dir)
    .filter((name) => name.endsWith(".ts"))
    .flatMap((name) =>
      readFileSync(new URL(name, dir), "utf8")
        .split("\n")
        .map((line, i) => ({ where: `${name}:${i + 1}`, line }))
        .filter(({ line }) => /\brt\.db\b|\.db\.|\basync\b|\bawait\b|from "kysely"/.test(line)),
    )
    .map(({ where, line }) => `${where}: ${line.trim()}`);
  assert.deepEqual(offending, []);
});
