// Fedify and Rookery use one Temporal, temporal-polyfill (installed under the name Fedify imports;
// src/federation/temporal.ts): instants that Fedify reads are Rookery's, and compare with them.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { Note } from "@fedify/fedify/vocab";
import { instant, Temporal } from "../src/federation/temporal.ts";

test("Fedify's Temporal is Rookery's, and it is temporal-polyfill", async () => {
  const fromFedify = createRequire(fileURLToPath(import.meta.resolve("@fedify/vocab"))).resolve(
    "@js-temporal/polyfill",
  );
  const ours = createRequire(import.meta.filename).resolve("@js-temporal/polyfill");
  assert.equal(fromFedify, ours);
  const manifest = JSON.parse(readFileSync(join(dirname(ours), "package.json"), "utf8"));
  assert.equal(manifest.name, "temporal-polyfill");

  const note = await Note.fromJsonLd({
    "@context": "https://www.w3.org/ns/activitystreams",
    id: "https://remote.test/notes/1",
    type: "Note",
    published: "2026-11-28T04:00:00Z",
  });
  assert.ok(note.published instanceof Temporal.Instant);
  assert.equal(Temporal.Instant.compare(note.published, instant(new Date("2026-11-28T04:00:00Z"))), 0);
  assert.equal(note.published.add({ hours: 1 }).toString(), "2026-11-28T05:00:00Z");
});
