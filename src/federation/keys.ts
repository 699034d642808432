// Local actors' key pairs, made the first time an actor is shown or signs something: RSA for HTTP
// signatures, Ed25519 for object integrity proofs. Two processes making them at once keep the
// first one written.
import { exportJwk, generateCryptoKeyPair, importJwk } from "@fedify/fedify";
import type { Db } from "../db/index.ts";

export interface ActorKeyPairs {
  rsa: CryptoKeyPair;
  ed25519: CryptoKeyPair;
}

/**
 * The id of an actor's Ed25519 key, as its document lists it among its `assertionMethod`s: Fedify
 * names the Multikeys of the pairs the key pairs dispatcher returns (RSA, then Ed25519) #multikey-1
 * and #multikey-2.
 */
export const proofKeyId = (actorUri: string) => new URL(`${actorUri}#multikey-2`);

/** The instance actor's owner key in `actor_keys`. */
export const INSTANCE_KEY_OWNER = "instance";

const cache = new WeakMap<Db, Map<string, Promise<ActorKeyPairs>>>();

/** `owner` is a local account's id or INSTANCE_KEY_OWNER. */
export function actorKeyPairs(db: Db, owner: string): Promise<ActorKeyPairs> {
  let byOwner = cache.get(db);
  if (!byOwner) {
    byOwner = new Map();
    cache.set(db, byOwner);
  }
  let pairs = byOwner.get(owner);
  if (!pairs) {
    pairs = loadOrMake(db, owner);
    pairs.catch(() => byOwner.delete(owner));
    byOwner.set(owner, pairs);
  }
  return pairs;
}

async function loadOrMake(db: Db, owner: string): Promise<ActorKeyPairs> {
  const row = await db.selectFrom("actor_keys").selectAll().where("owner", "=", owner).executeTakeFirst();
  if (row) return parse(row);
  const rsa = await generateCryptoKeyPair("RSASSA-PKCS1-v1_5");
  const ed25519 = await generateCryptoKeyPair("Ed25519");
  const text = async (key: CryptoKey) => JSON.stringify(await exportJwk(key));
  await db
    .insertInto("actor_keys")
    .values({
      owner,
      rsa_public: await text(rsa.publicKey),
      rsa_private: await text(rsa.privateKey),
      ed25519_public: await text(ed25519.publicKey),
      ed25519_private: await text(ed25519.privateKey),
      created_at: new Date(),
    })
    .onConflict((oc) => oc.column("owner").doNothing())
    .execute();
  return parse(await db.selectFrom("actor_keys").selectAll().where("owner", "=", owner).executeTakeFirstOrThrow());
}

async function parse(row: {
  rsa_public: string;
  rsa_private: string;
  ed25519_public: string;
  ed25519_private: string;
}): Promise<ActorKeyPairs> {
  const load = (text: string, type: "public" | "private") => importJwk(JSON.parse(text), type);
  return {
    rsa: { publicKey: await load(row.rsa_public, "public"), privateKey: await load(row.rsa_private, "private") },
    ed25519: {
      publicKey: await load(row.ed25519_public, "public"),
      privateKey: await load(row.ed25519_private, "private"),
    },
  };
}
