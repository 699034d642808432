// Small per-process caches of computed answers (instance documents, peers, activity, whether a
// viewer is in any block), dropped everywhere when what they were computed from changes.
import type { Runtime } from "../runtime.ts";

interface Entry {
  value: unknown;
  expires: number;
}

interface Cache {
  entries: Map<string, Entry>;
  /** Counts invalidations: a value computed across one is not kept, as it may predate the change. */
  generation: number;
  /** Lookups answered from memory and not, since the start (the metrics' hit rate). */
  hits: number;
  misses: number;
}

const caches = new WeakMap<Runtime, Cache>();
const CHANNEL = "cache:invalidate";
/** Past this many values (a value per viewer, for some keys), the cache starts again empty. */
const MAX_ENTRIES = 10_000;

function drop(cache: Cache, prefix: string): void {
  cache.generation++;
  for (const key of cache.entries.keys()) if (key.startsWith(prefix)) cache.entries.delete(key);
}

function cacheOf(rt: Runtime): Cache {
  let cache = caches.get(rt);
  if (!cache) {
    const fresh: Cache = { entries: new Map(), generation: 0, hits: 0, misses: 0 };
    rt.bus.subscribe(CHANNEL, (prefix) => drop(fresh, prefix));
    caches.set(rt, fresh);
    cache = fresh;
  }
  return cache;
}

/** The value under `key`, computing it when absent or older than `ttlMs`. */
export async function cached<T>(rt: Runtime, key: string, ttlMs: number, compute: () => Promise<T>): Promise<T> {
  const cache = cacheOf(rt);
  const hit = cache.entries.get(key);
  if (hit && hit.expires > Date.now()) {
    cache.hits++;
    return hit.value as T;
  }
  cache.misses++;
  const generation = cache.generation;
  const value = await compute();
  if (cache.generation === generation) {
    if (cache.entries.size >= MAX_ENTRIES) cache.entries.clear();
    cache.entries.set(key, { value, expires: Date.now() + ttlMs });
  }
  return value;
}

/** Drops every cached value whose key starts with `prefix`, in every process. */
export async function invalidate(rt: Runtime, prefix: string): Promise<void> {
  drop(cacheOf(rt), prefix);
  await rt.bus.publish(CHANNEL, prefix);
}

/** This runtime's hits and misses, for the metrics. */
export function computedCacheStats(rt: Runtime): { name: string; hits: number; misses: number } {
  const cache = caches.get(rt);
  return { name: "computed", hits: cache?.hits ?? 0, misses: cache?.misses ?? 0 };
}
