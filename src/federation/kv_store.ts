// Fedify's key-value store (public-key cache, idempotency of inbox activities, circuit-breaker
// state) over the `kv` table, so that every process and worker sees the same entries on SQLite and
// PostgreSQL. Keys are kept under a "fedify" prefix, apart from Rookery's own entries.
import type { KvKey, KvStore, KvStoreListEntry, KvStoreSetOptions } from "@fedify/fedify";
import { sql } from "kysely";
import type { Db } from "../db/index.ts";

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
 */
const KEY_PREFIX = `${encode(["_fedify", "publicKey"])}${SEP}`;
const MAX_KEPT_KEYS = 10_000;

export function databaseKvStore(db: Db): KvStore {
  const keys = new Map<string, { json: string; expiresAt: Date | null }>();
  const keep = (key: string, json: string, expiresAt: Date | null) => {
    if (!key.startsWith(KEY_PREFIX)) return;
    keys.delete(key);
    if (keys.size >= MAX_KEPT_KEYS) keys.delete(keys.keys().next().value as string);
    keys.set(key, { json, expiresAt });
  };
  return {
    async get<T>(key: KvKey): Promise<T | undefined> {
      const text = encode(key);
      const kept = keys.get(text);
      if (kept && (!kept.expiresAt || kept.expiresAt > new Date())) return JSON.parse(kept.json) as T;
      const row = await db.selectFrom("kv").select(["value", "expires_at"]).where("key", "=", text).executeTakeFirst();
      if (!row || (row.expires_at && row.expires_at <= new Date())) return undefined;
      keep(text, JSON.stringify(row.value), row.expires_at);
      return row.value as T;
    },
    async set(key, value, options) {
      const row = { value: JSON.stringify(value), expires_at: expiry(options) };
      keep(encode(key), row.value, row.expires_at);
      await db
        .insertInto("kv")
        .values({ key: encode(key), ...row })
        .onConflict((oc) => oc.column("key").doUpdateSet(row))
        .execute();
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
