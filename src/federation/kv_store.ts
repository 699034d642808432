// Fedify's key-value store (public-key cache, idempotency of inbox activities, circuit-breaker
// state) over the `kv` table, so that every process and worker sees the same entries on SQLite and
// PostgreSQL. Keys are kept under a "fedify" prefix, apart from Rookery's own entries.
import type { KvKey, KvStore, KvStoreListEntry, KvStoreSetOptions } from "@fedify/fedify";
import { CryptographicKey } from "@fedify/fedify/vocab";
import { sql } from "kysely";
import type { Db } from "../db/index.ts";
import { prepared } from "../db/prepared.ts";

const PREFIX = "fedify";
/** A separator that does not occur in URLs or Fedify's key parts. */
const SEP = "\u001f";

const encode = (key: KvKey) => [PREFIX, ...key].join(SEP);
const decode = (text: string) => text.split(SEP).slice(1) as unknown as KvKey;

function expiry(options?: KvStoreSetOptions): Date | null {
  return options?.ttl ? new Date(Date.now() + options.ttl.total("millisecond")) : null;
}

/**
 * Remote actors' public keys, which every inbox request looks up, are also kept in this process (the
 * most recently used ones), so that a known actor's key costs no query. A key kept here that no
 * longer verifies a signature (rotated, or replaced by another process) makes Fedify fetch it again
 * and set it anew, here too.
 *
 * A kept key is handed out as one frozen object, and Fedify's reading of it (JSON-LD expansion and
 * the import of its PEM, which its inbox does again for every request: 0.4–0.5 ms, a tenth of an
 * inbox request's CPU) is done once per object: CryptographicKey.fromJsonLd remembers what it made
 * of each object kept here, and of nothing else. A store belongs to one runtime, so the loaders of
 * the first reading are the ones every later reader would have passed.
 */
const KEY_PREFIX = `${encode(["_fedify", "publicKey"])}${SEP}`;
/**
 * Fedify records each inbox activity it has run, by its id, and drops for a day an activity whose id
 * it finds recorded. Activities are deduplicated by their effect here instead, as Mastodon does:
 * every listener leaves things as they are when its work is done already (inbox.ts), so a
 * redelivered activity changes nothing, and an id used again with a new meaning still counts
 * (Hollo gives every Accept of a follow by one account the same id, so a second follow would stay
 * requested for ever). The record is neither read nor written.
 */
const DONE_PREFIX = `${encode(["_fedify", "activityIdempotence"])}${SEP}`;
const MAX_KEPT_KEYS = 10_000;

/** Each kept key object, with what CryptographicKey.fromJsonLd made of it once asked. */
const readings = new WeakMap<object, Promise<CryptographicKey> | undefined>();
const fromJsonLd = CryptographicKey.fromJsonLd.bind(CryptographicKey);
CryptographicKey.fromJsonLd = (json, options) => {
  if (typeof json !== "object" || json === null || !readings.has(json)) return fromJsonLd(json, options);
  let reading = readings.get(json);
  if (!reading) {
    reading = fromJsonLd(json, options);
    // Not a CryptographicKey (Fedify tries a Multikey next), or a loader failed: read it anew next time.
    reading.catch(() => readings.set(json, undefined));
    readings.set(json, reading);
  }
  return reading;
};

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

type KvRow = { key: string; value: string; expires_at: Date | null };

/** An entry set. */
function writeKv(db: Db, _: null, v: KvRow) {
  return db
    .insertInto("kv")
    .values(v)
    .onConflict((oc) =>
      oc
        .column("key")
        .doUpdateSet((eb) => ({ value: eb.ref("excluded.value"), expires_at: eb.ref("excluded.expires_at") })),
    );
}

// Public keys are read and written for nearly every inbox activity: compiled once.
const writeKvPrepared = prepared(writeKv);
const readKv = prepared((db, _: null, v: { key: string }) =>
  db.selectFrom("kv").select(["value", "expires_at"]).where("key", "=", v.key),
);

export function databaseKvStore(db: Db): KvStore {
  const keys = new Map<string, { value: unknown; expiresAt: Date | null }>();
  /** Keeps a key's value, an object no one else holds: frozen, as every reader now gets this one. */
  const keep = (key: string, value: unknown, expiresAt: Date | null) => {
    deepFreeze(value);
    if (typeof value === "object" && value !== null) readings.set(value, undefined);
    keys.delete(key);
    if (keys.size >= MAX_KEPT_KEYS) keys.delete(keys.keys().next().value as string);
    keys.set(key, { value, expiresAt });
  };
  return {
    async get<T>(key: KvKey): Promise<T | undefined> {
      const text = encode(key);
      if (text.startsWith(DONE_PREFIX)) return undefined;
      const kept = keys.get(text);
      if (kept && (!kept.expiresAt || kept.expiresAt > new Date())) return kept.value as T;
      const [row] = await readKv(db, null, { key: text });
      if (!row || (row.expires_at && row.expires_at <= new Date())) return undefined;
      if (text.startsWith(KEY_PREFIX)) keep(text, row.value, row.expires_at);
      return row.value as T;
    },
    async set(key, value, options) {
      const text = encode(key);
      if (text.startsWith(DONE_PREFIX)) return;
      const row = { value: JSON.stringify(value), expires_at: expiry(options) };
      if (text.startsWith(KEY_PREFIX)) keep(text, JSON.parse(row.value), row.expires_at);
      await writeKvPrepared(db, null, { key: text, ...row });
    },
    async delete(key) {
      keys.delete(encode(key));
      await db.deleteFrom("kv").where("key", "=", encode(key)).execute();
    },
    async *list(prefix?: KvKey): AsyncIterable<KvStoreListEntry> {
      const start = prefix ? encode(prefix) : PREFIX;
      const rows = await db
        .selectFrom("kv")
        .select(["key", "value", "expires_at"])
        .where((eb) =>
          eb.or([
            eb("key", "=", start),
            sql<boolean>`key like ${`${start.replace(/[\\%_]/g, "\\$&")}${SEP}%`} escape '\\'`,
          ]),
        )
        .execute();
      const now = new Date();
      for (const row of rows) {
        if (row.expires_at && row.expires_at <= now) continue;
        yield { key: decode(row.key), value: row.value };
      }
    },
  };
}
