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
  /** A status entered these home (feed id = owner's account id) and list feeds. */
  "feed.inserted": { statusId: string; feeds: string[] };
  /** A status left these feeds (deleted, or a boost withdrawn). */
  "feed.removed": { statusId: string; feeds: string[] };
  /** A status reached the timelines it belongs to (the public and hashtag ones, if it is public). */
  "statuses.published": { id: string };
  /** A status was edited. */
  "statuses.edited": { id: string };
  /** Statuses got their link's preview card, lost it, or it changed: streams show them again. */
  "statuses.card": { ids: string[] };
  /** Statuses were deleted; `public`: they were on the public timelines. */
  "statuses.deleted": { ids: string[]; public: boolean };
  /** A notification was recorded (and not filtered) for the account. */
  "notification.created": { accountId: string; id: string };
  /** A direct status joined the conversations of these accounts. */
  "conversation.updated": { statusId: string; accountIds: string[] };
  /** Accepted notification requests finished merging into the account's notifications. */
  "notifications.merged": { accountId: string };
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

/**
 * Listens to `event` through the bus alone: every process hears each event once, its own included
 * (after the publisher's turn). For listeners that act once per event, such as open streams.
 */
export function onBusEvent<E extends BusEvent>(rt: Runtime, event: E, listener: Listener<E>): () => void {
  return rt.bus.subscribe(CHANNEL + event, (message) => listener(JSON.parse(message) as BusEvents[E]));
}
