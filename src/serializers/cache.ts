// Rendered parts of statuses and accounts that rarely change, kept per process so that timelines
// render from memory. Whatever changes a status or an account tells the bus; every process then
// drops its copy. Counters and the viewer's own flags are never cached.
import type { Runtime } from "../runtime.ts";

/** A Map that forgets its least recently used entries beyond `max`. */
export class Lru<K, V> {
  readonly #map = new Map<K, V>();
  readonly #max: number;

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

const STATUS = "render:status";
const ACCOUNT = "render:account";

interface Caches {
  statuses: Lru<string, unknown>;
  accounts: Lru<string, unknown>;
}

const registry = new WeakMap<Runtime, Caches>();

export function renderCaches(rt: Runtime): Caches {
  let caches = registry.get(rt);
  if (!caches) {
    const fresh: Caches = { statuses: new Lru(20_000), accounts: new Lru(20_000) };
    rt.bus.subscribe(STATUS, (ids) => {
      for (const id of ids.split(",")) fresh.statuses.delete(id);
    });
    rt.bus.subscribe(ACCOUNT, (ids) => {
      for (const id of ids.split(",")) fresh.accounts.delete(id);
    });
    registry.set(rt, fresh);
    caches = fresh;
  }
  return caches;
}

/** After statuses changed (edited, deleted, a boost withdrawn): every process renders them afresh. */
export async function statusesChanged(rt: Runtime, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const caches = renderCaches(rt);
  for (const id of ids) caches.statuses.delete(id);
  await rt.bus.publish(STATUS, ids.join(","));
}

/** After an account's profile, role or standing changed. */
export async function accountChanged(rt: Runtime, id: string): Promise<void> {
  renderCaches(rt).accounts.delete(id);
  await rt.bus.publish(ACCOUNT, id);
}
