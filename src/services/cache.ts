// Small per-process caches of computed answers (instance documents, peers, activity), dropped
// everywhere when what they were computed from changes.
import type { Runtime } from "../runtime.ts";

interface Entry {
  value: unknown;
  expires: number;
}

const caches = new WeakMap<Runtime, Map<string, Entry>>();
const CHANNEL = "cache:invalidate";

function cacheOf(rt: Runtime): Map<string, Entry> {
  let cache = caches.get(rt);
  if (!cache) {
    const fresh = new Map<string, Entry>();
    rt.bus.subscribe(CHANNEL, (prefix) => {
      for (const key of fresh.keys()) if (key.startsWith(prefix)) fresh.delete(key);
    });
    caches.set(rt, fresh);
    cache = fresh;
  }
  return cache;
}

/** The value under `key`, computing it when absent or older than `ttlMs`. */
export async function cached<T>(rt: Runtime, key: string, ttlMs: number, compute: () => Promise<T>): Promise<T> {
  const cache = cacheOf(rt);
  const hit = cache.get(key);
  if (hit && hit.expires > Date.now()) return hit.value as T;
  const value = await compute();
  cache.set(key, { value, expires: Date.now() + ttlMs });
  return value;
}

/** Drops every cached value whose key starts with `prefix`, in every process. */
export async function invalidate(rt: Runtime, prefix: string): Promise<void> {
  const cache = cacheOf(rt);
  for (const key of cache.keys()) if (key.startsWith(prefix)) cache.delete(key);
  await rt.bus.publish(CHANNEL, prefix);
}
