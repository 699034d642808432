// The parts of statuses and accounts that rarely change, kept per process so that timelines load
// from memory. Whatever changes a status or an account publishes an event on the bus
// (src/streaming/events.ts); every process then drops its copy. Counters and the viewer's own flags
// are never cached.
import type { Runtime } from "../runtime.ts";
import { onEvent } from "../streaming/events.ts";

/** A Map that forgets its least recently used entries beyond `max`. */
class Lru<K, V> {
  readonly #map = new Map<K, V>();
  readonly #max: number;
  /** Lookups answered from memory and not, since the start (the metrics' hit rate). */
  hits = 0;
  misses = 0;

  constructor(max: number) {
    this.#max = max;
  }

  get(key: K): V | undefined {
    const value = this.#map.get(key);
    if (value !== undefined) {
      this.#map.delete(key);
      this.#map.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    this.#map.delete(key);
    this.#map.set(key, value);
    if (this.#map.size > this.#max) this.#map.delete(this.#map.keys().next().value as K);
  }

  delete(key: K): void {
    this.#map.delete(key);
  }
}

interface Caches {
  statuses: Lru<string, unknown>;
  accounts: Lru<string, unknown>;
}

const registry = new WeakMap<Runtime, Caches>();

export function viewCaches(rt: Runtime): Caches {
  let caches = registry.get(rt);
  if (!caches) {
    const size = rt.config.memory.renderCacheEntries;
    const fresh: Caches = { statuses: new Lru(size), accounts: new Lru(size) };
    onEvent(rt, "statuses.changed", ({ ids }) => {
      for (const id of ids) fresh.statuses.delete(id);
    });
    onEvent(rt, "account.changed", ({ id }) => fresh.accounts.delete(id));
    registry.set(rt, fresh);
    caches = fresh;
  }
  return caches;
}

/** Values by id, from `cache` where it has them, else from `load` (and kept). */
export async function throughCache<V>(
  cache: Lru<string, unknown>,
  ids: readonly string[],
  load: (missing: string[]) => Promise<Map<string, V>>,
): Promise<Map<string, V>> {
  const out = new Map<string, V>();
  const missing: string[] = [];
  for (const id of new Set(ids)) {
    const hit = cache.get(id) as V | undefined;
    if (hit) out.set(id, hit);
    else missing.push(id);
  }
  cache.hits += out.size;
  cache.misses += missing.length;
  if (missing.length === 0) return out;
  for (const [id, value] of await load(missing)) {
    cache.set(id, value);
    out.set(id, value);
  }
  return out;
}

/** The caches this runtime has made so far, by name, for the metrics (none made, none told). */
export function viewCacheStats(rt: Runtime): { name: string; hits: number; misses: number }[] {
  const caches = registry.get(rt);
  if (!caches) return [];
  return Object.entries(caches).map(([name, lru]) => ({ name: `${name}_view`, hits: lru.hits, misses: lru.misses }));
}
