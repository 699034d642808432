// Fedify's key-value store over the database: remote keys kept in the process are handed out as one
// frozen object each, which CryptographicKey.fromJsonLd reads once; other entries are not kept.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { generateCryptoKeyPair, type KvKey } from "@fedify/fedify";
import { CryptographicKey } from "@fedify/fedify/vocab";
import { databaseKvStore } from "../src/federation/kv_store.ts";
import { startServer, type TestServer } from "./rig.ts";

let server: TestServer;

before(async () => {
  server = await startServer({ worker: false });
});
after(async () => {
  await server.close();
});

async function keyJson(id: string): Promise<unknown> {
  const { publicKey } = await generateCryptoKeyPair("RSASSA-PKCS1-v1_5");
  const key = new CryptographicKey({ id: new URL(id), owner: new URL(id.replace(/#.*/, "")), publicKey });
  return key.toJsonLd();
}

test("a kept key is one frozen object, read into a CryptographicKey once until it is set anew", async () => {
  const kv = databaseKvStore(server.rt.db);
  const keyId = "https://remote.test/users/a#main-key";
  const name: KvKey = ["_fedify", "publicKey", keyId];
  await kv.set(name, await keyJson(keyId));
  const first = await kv.get<object>(name);
  assert.ok(first && Object.isFrozen(first));
  assert.equal(await kv.get(name), first);
  const read = await CryptographicKey.fromJsonLd(first);
  assert.equal(await CryptographicKey.fromJsonLd(first), read);
  assert.equal(read.id?.href, keyId);

  // Another store (another process) reads the row into an object of its own.
  const elsewhere = await databaseKvStore(server.rt.db).get<object>(name);
  assert.deepEqual(elsewhere, first);
  assert.notEqual(elsewhere, first);

  // A rotated key replaces the kept object, and is read anew.
  await kv.set(name, await keyJson(keyId));
  const rotated = await kv.get<object>(name);
  assert.notDeepEqual(rotated, first);
  assert.notEqual(await CryptographicKey.fromJsonLd(rotated), read);

  // An equal object that the store did not hand out is read each time, as Fedify would.
  const copy = structuredClone(rotated);
  assert.notEqual(await CryptographicKey.fromJsonLd(copy), await CryptographicKey.fromJsonLd(copy));
});

test("other entries are read from the database each time, as plain values", async () => {
  const kv = databaseKvStore(server.rt.db);
  const name: KvKey = ["_fedify", "remoteDocument", "https://remote.test/activities/1"];
  await kv.set(name, { seen: true });
  const value = await kv.get<{ seen: boolean }>(name);
  assert.deepEqual(value, { seen: true });
  assert.ok(!Object.isFrozen(value));
  assert.notEqual(await kv.get(name), value);
  await kv.delete(name);
  assert.equal(await kv.get(name), undefined);
});

test("Fedify's record of the activities it ran is neither kept nor found: activities count by their effect", async () => {
  const kv = databaseKvStore(server.rt.db);
  const name: KvKey = ["_fedify", "activityIdempotence", "https://remote.test", "https://remote.test/accepts/1"];
  await kv.set(name, true);
  assert.equal(await kv.get(name), undefined);
  const rows = await server.rt.db.selectFrom("kv").select("key").execute();
  assert.ok(!rows.some((r) => r.key.includes("activityIdempotence")));
});
