// Fedify's readings of JSON-LD expand each document once per context loader, and expanded terms
// not at all (src/federation/jsonld_expansions.ts), and read every kind of activity exactly as
// before.
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { test } from "node:test";
import jsonld from "@fedify/vocab-runtime/jsonld";
import { activityFixtureNames, loadActivity, PLACEHOLDERS, type Placeholder } from "./activity_fixtures.ts";

type Expand = (input: unknown, options?: Record<string, unknown>) => Promise<unknown[]>;
const api = jsonld as unknown as { expand: Expand };

// jsonld's own expansion, counted, is what the wrapper calls when it must expand.
const original = api.expand.bind(jsonld);
let expansions = 0;
api.expand = (input, options) => {
  expansions++;
  return original(input, options);
};
await import("../src/federation/jsonld_expansions.ts");
const { Activity, Create, Note } = await import("@fedify/fedify/vocab");
const { loadConfig } = await import("../src/config.ts");
const { contextLoaderFactory } = await import("../src/federation/document_loader.ts");

const AS = "https://www.w3.org/ns/activitystreams";
// The server's own loader: known contexts from memory, unreachable ones read as empty.
const contextLoader = contextLoaderFactory(
  loadConfig({ LOCAL_DOMAIN: "local.test", SECRET_KEY_BASE: "x".repeat(64), DATA_DIR: "/nonexistent" }),
)({});
const options = { contextLoader, documentLoader: contextLoader };

/** A reading and its embedded object, as JSON-LD, with `expand` as jsonld's own or the wrapper. */
async function reading(json: Record<string, unknown>, withOriginal: boolean) {
  const wrapped = api.expand;
  if (withOriginal) api.expand = original;
  try {
    const activity = await Activity.fromJsonLd(structuredClone(json), options);
    const object = await activity.getObject({ ...options, crossOrigin: "trust" }).catch(() => null);
    return {
      type: activity.constructor.name,
      activity: await activity.toJsonLd({ contextLoader }),
      object: object ? await object.toJsonLd({ contextLoader }) : null,
    };
  } finally {
    api.expand = wrapped;
  }
}

test("every fixture reads the same as with jsonld's own expansion", async () => {
  const values = Object.fromEntries(PLACEHOLDERS.map((p) => [p, `https://remote.test/${p}`])) as Record<
    Placeholder,
    string
  >;
  values.host = "remote.test";
  values.origin = "https://remote.test";
  values.actor_public_key_pem = generateKeyPairSync("rsa", { modulusLength: 2048 })
    .publicKey.export({ type: "spki", format: "pem" })
    .toString();
  const names = activityFixtureNames();
  assert.ok(names.length >= 30, `fixtures: ${names.length}`);
  for (const name of names) {
    const json = loadActivity(name, values);
    const before = await reading(json, true);
    const after = await reading(json, false);
    assert.deepEqual(after, before, name);
    assert.notEqual(after.type, "Object", name);
  }
});

test("a Create(Note) is expanded once, not seven times", async () => {
  const json = {
    "@context": AS,
    id: "https://remote.test/notes/1/activity",
    type: "Create",
    actor: "https://remote.test/users/a",
    object: { id: "https://remote.test/notes/1", type: "Note", content: "<p>Hello</p>", tag: [] },
  };
  expansions = 0;
  const activity = await Activity.fromJsonLd(json, options);
  const note = await activity.getObject(options);
  assert.ok(activity instanceof Create);
  assert.ok(note instanceof Note);
  assert.equal(note.content, "<p>Hello</p>");
  assert.equal(expansions, 1);

  // The same document with another context loader is expanded again; with the same, not.
  const other = async (url: string) => contextLoader(url);
  await Activity.fromJsonLd(json, { contextLoader: other, documentLoader: other });
  assert.equal(expansions, 2);
  await Activity.fromJsonLd(json, options);
  assert.equal(expansions, 2);
  // Another object with the same content is another document.
  await Activity.fromJsonLd({ ...json }, options);
  assert.equal(expansions, 3);
});

/** An expansion as Fedify asks for one. */
const expandAsFedify = (doc: unknown, loader: unknown = contextLoader) =>
  api.expand(doc, { documentLoader: loader, keepFreeFloatingNodes: true }) as Promise<Record<string, unknown>[]>;

test("each reader gets its own copy, and a failed expansion is tried again", async () => {
  const json = { "@context": AS, id: "https://remote.test/notes/2", type: "Note", content: "x" };
  const first = await expandAsFedify(json);
  delete first[0]["@type"];
  const second = await expandAsFedify(json);
  assert.deepEqual(second[0]["@type"], [`${AS}#Note`]);
  // Expanding expanded terms gives an equal copy, not the same object.
  const again = await expandAsFedify(second[0]);
  assert.deepEqual(again, second);
  assert.notEqual(again[0], second[0]);
  // Below its top level, an expansion is shared, and frozen: a change there throws.
  const content = second[0][`${AS}#content`] as Record<string, unknown>[];
  assert.equal(content, again[0][`${AS}#content`]);
  assert.throws(() => {
    content[0]["@value"] = "changed";
  }, TypeError);
  assert.deepEqual(content, [{ "@value": "x" }]);

  // A context of the remote server's that is out of reach at first.
  const NS = "https://remote.test/ns";
  let reachable = false;
  const flaky = async (url: string) => {
    if (url !== NS) return contextLoader(url);
    if (!reachable) throw new Error("out of reach");
    return { contextUrl: null, documentUrl: url, document: { "@context": { mood: `${NS}#mood` } } };
  };
  const doc = { "@context": [AS, NS], id: "https://remote.test/notes/3", type: "Note", mood: "calm" };
  await assert.rejects(expandAsFedify(doc, flaky));
  reachable = true;
  const read = await expandAsFedify(doc, flaky);
  assert.equal(read[0]["@id"], "https://remote.test/notes/3");
  assert.deepEqual(read[0][`${NS}#mood`], [{ "@value": "calm" }]);
});

test("other kinds of calls are jsonld's own", async () => {
  const json = { "@context": AS, id: "https://remote.test/notes/4", type: "Note" };
  expansions = 0;
  await api.expand(json, { documentLoader: contextLoader });
  await api.expand(json, { documentLoader: contextLoader });
  assert.equal(expansions, 2);
  const compacted = await jsonld.compact(json, AS, { documentLoader: contextLoader } as never);
  assert.equal((compacted as Record<string, unknown>).type, "Note");
});
