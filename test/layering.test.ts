// The one-way flow of data: serializers render what they are given. They neither read the database
// nor wait for anything, so every load is a batched loader in src/services; services never import
// src/federation (which imports them).
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

test("no service imports federation: federation calls the services, and they reach it through the runtime", () => {
  const services = new URL("../src/services/", import.meta.url);
  const federation = new URL("../src/federation/", import.meta.url).href;
  const offending = readdirSync(services, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts"))
    .flatMap((name) => {
      const file = new URL(name, services);
      return [...readFileSync(file, "utf8").matchAll(/from "(\.[^"]+)"/g)]
        .filter((m) => new URL(m[1], file).href.startsWith(federation))
        .map((m) => `${name}: ${m[1]}`);
    });
  assert.deepEqual(offending, []);
});
