// Typed events on the bus: what changed, told by the services that changed it, heard by whoever keeps
// a copy (render caches, compiled filters). The publisher knows nothing of its listeners, so data
// still flows one way: services → bus → caches.
import type { Runtime } from "../runtime.ts";

/** Every event and its payload. */
export interface BusEvents {
  /** Statuses edited, deleted, or a boost withdrawn: render them afresh. */
  "statuses.changed": { ids: string[] };
  /** An account's profile, role or standing changed. */
  "account.changed": { id: string };
  /** An account's filters, keywords or filtered statuses changed. */
  "filters.changed": { accountId: string };
}

export type BusEvent = keyof BusEvents;
type Listener<E extends BusEvent> = (payload: BusEvents[E]) => void;

const CHANNEL = "event:";
const local = new WeakMap<Runtime, Map<BusEvent, Set<Listener<never>>>>();

/**
 * Listens to `event` from every process. The publishing process hears its own event at once (so that
 * its next read sees the change) and again through the bus: listeners must be safe to run twice.
 */
export function onEvent<E extends BusEvent>(rt: Runtime, event: E, listener: Listener<E>): void {
  let byEvent = local.get(rt);
  if (!byEvent) {
    byEvent = new Map();
    local.set(rt, byEvent);
  }
  let set = byEvent.get(event);
  if (!set) {
    set = new Set();
    byEvent.set(event, set);
  }
  set.add(listener as Listener<never>);
  rt.bus.subscribe(CHANNEL + event, (message) => listener(JSON.parse(message) as BusEvents[E]));
}

export async function publishEvent<E extends BusEvent>(rt: Runtime, event: E, payload: BusEvents[E]): Promise<void> {
  for (const listener of local.get(rt)?.get(event) ?? []) (listener as Listener<E>)(payload);
  await rt.bus.publish(CHANNEL + event, JSON.stringify(payload));
}
