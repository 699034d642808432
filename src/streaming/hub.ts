// The open streams of one thread (WebSocket and SSE alike), indexed by what they follow, and the bus
// events turned into the frames they receive. Events are handled in the order the bus delivers them,
// one at a time in each of three lanes (feeds, public timelines, an account's own events), so that a
// stream never sees a status's `delete` before its `update`, while a slow public event does not hold
// up the home feeds; nothing is loaded or rendered for an event nobody here listens to.

import { inactiveReason } from "../domain/user_state.ts";
import { logger } from "../log.ts";
import type { Runtime } from "../runtime.ts";
import { renderAnnouncements } from "../serializers/announcement.ts";
import { renderConversations } from "../serializers/conversation.ts";
import { renderNotifications } from "../serializers/notification.ts";
import { announcementsFor, reactionCount } from "../services/announcements/announcements.ts";
import { authenticate, onAuthInvalidated } from "../services/auth/authenticate.ts";
import { publicTimelineReaders } from "../services/feeds/timelines.ts";
import { hiddenStatusIds } from "../services/filters/hidden.ts";
import { getNotification } from "../services/notifications/read.ts";
import { loadNotificationViews } from "../services/notifications/views.ts";
import { conversationEndingWith, loadConversationViews } from "../services/statuses/conversations.ts";
import { type BusEvent, type BusEvents, onBusEvent } from "./events.ts";
import { renderForViewers } from "./render.ts";
import type { Stream, Viewer } from "./streams.ts";

const log = logger("streaming");

/**
 * One event for a client: the stream(s) it belongs to, its name, and its payload (a JSON string or
 * an id). The hub hands the same frame to every subscriber of a stream, so that a connection may
 * serialise it once for all (see `serialized`).
 */
export interface Frame {
  stream: string[];
  event: string;
  payload?: string;
}

const texts = new WeakMap<Frame, Buffer>();

/** A frame as the bytes of a WebSocket text message, encoded once per frame. */
export function serialized(frame: Frame): Buffer {
  let text = texts.get(frame);
  if (text === undefined) {
    text = Buffer.from(JSON.stringify(frame));
    texts.set(frame, text);
  }
  return text;
}

/** A client's connection: a WebSocket (many streams) or an SSE response (one). */
export interface Connection {
  /** The token it was opened with, checked again whenever tokens may have been revoked. */
  readonly token: string | null;
  readonly viewer: Viewer | null;
  send(frame: Frame): void;
  /** Keeps an idle connection alive through proxies that drop silent ones. */
  heartbeat(): void;
  close(): void;
}

const HEARTBEAT_MS = 15_000;

interface Subscription {
  conn: Connection;
  stream: Stream;
}

const keyOf = (label: string[]) => label.join("\u0000");

/** The lanes events are handled in, each in order (see the top of the file). */
type Lane = "feeds" | "public" | "accounts";

function addTo<K>(map: Map<K, Set<Subscription>>, key: K, sub: Subscription) {
  let set = map.get(key);
  if (!set) {
    set = new Set();
    map.set(key, set);
  }
  set.add(sub);
}

function removeFrom<K>(map: Map<K, Set<Subscription>>, key: K, sub: Subscription) {
  const set = map.get(key);
  if (!set) return;
  set.delete(sub);
  if (set.size === 0) map.delete(key);
}

export class Hub {
  readonly #rt: Runtime;
  readonly #byConn = new Map<Connection, Map<string, Subscription>>();
  /** `user` and `list` streams by feed id (the owner's account id for home). */
  readonly #byFeed = new Map<string, Set<Subscription>>();
  /** Every stream of a viewer, by account id (notifications, conversations, filters). */
  readonly #byAccount = new Map<string, Set<Subscription>>();
  readonly #public = new Set<Subscription>();
  readonly #lanes: Record<Lane, Promise<void>> = {
    feeds: Promise.resolve(),
    public: Promise.resolve(),
    accounts: Promise.resolve(),
  };
  readonly #unsubscribe: (() => void)[] = [];
  readonly #heartbeat: NodeJS.Timeout;

  constructor(rt: Runtime) {
    this.#rt = rt;
    this.#heartbeat = setInterval(() => {
      for (const conn of this.#byConn.keys()) conn.heartbeat();
    }, HEARTBEAT_MS);
    this.#heartbeat.unref();
    this.#on("feed.inserted", "feeds", (e) => this.#feedInserted(e));
    this.#on("feed.removed", "feeds", (e) => this.#feedRemoved(e));
    this.#on("statuses.edited", "feeds", (e) => this.#editedInFeeds(e));
    this.#on("statuses.published", "public", (e) => this.#published(e));
    this.#on("statuses.edited", "public", (e) => this.#editedInPublic(e));
    this.#on("statuses.card", "feeds", async ({ ids }) => {
      for (const id of ids) await this.#editedInFeeds({ id });
    });
    this.#on("statuses.card", "public", async ({ ids }) => {
      for (const id of ids) await this.#editedInPublic({ id });
    });
    this.#on("statuses.deleted", "public", (e) => this.#deleted(e));
    this.#on("notification.created", "accounts", (e) => this.#notification(e));
    this.#on("conversation.updated", "accounts", (e) => this.#conversation(e));
    this.#on("filters.changed", "accounts", async ({ accountId }) => {
      for (const sub of this.#userStreams(accountId, false)) this.#send(sub, "filters_changed");
    });
    this.#on("notifications.merged", "accounts", async ({ accountId }) => {
      for (const sub of this.#userStreams(accountId, true)) this.#send(sub, "notifications_merged", "1");
    });
    this.#on("announcements.published", "accounts", (e) => this.#announcement(e));
    this.#on("announcements.reaction", "accounts", (e) => this.#announcementReaction(e));
    this.#on("announcements.removed", "accounts", async ({ id }) => {
      this.#sendAll(this.#everyUserStream(), "announcement.delete", () => id);
    });
    this.#unsubscribe.push(onAuthInvalidated(rt, () => this.#enqueue("accounts", () => this.#recheckTokens())));
  }

  get connections(): number {
    return this.#byConn.size;
  }

  /** Streams subscribed on every connection, together. */
  get subscriptions(): number {
    let n = 0;
    for (const subs of this.#byConn.values()) n += subs.size;
    return n;
  }

  open(conn: Connection): void {
    if (!this.#byConn.has(conn)) this.#byConn.set(conn, new Map());
  }

  subscribe(conn: Connection, stream: Stream): void {
    const subs = this.#byConn.get(conn);
    const key = keyOf(stream.label);
    if (!subs || subs.has(key)) return;
    const sub = { conn, stream };
    subs.set(key, sub);
    if (stream.kind === "feed") addTo(this.#byFeed, stream.feedId, sub);
    if (stream.kind === "public") this.#public.add(sub);
    if (conn.viewer) addTo(this.#byAccount, conn.viewer.accountId, sub);
  }

  unsubscribe(conn: Connection, label: string[]): void {
    const sub = this.#byConn.get(conn)?.get(keyOf(label));
    if (sub) this.#drop(sub);
  }

  /** Forgets a connection that closed. */
  close(conn: Connection): void {
    for (const sub of this.#byConn.get(conn)?.values() ?? []) this.#drop(sub);
    this.#byConn.delete(conn);
  }

  /** Closes every connection (the server is stopping) and stops listening to the bus. */
  shutdown(): void {
    clearInterval(this.#heartbeat);
    for (const conn of [...this.#byConn.keys()]) conn.close();
    this.#byConn.clear();
    for (const stop of this.#unsubscribe) stop();
  }

  #drop(sub: Subscription) {
    this.#byConn.get(sub.conn)?.delete(keyOf(sub.stream.label));
    if (sub.stream.kind === "feed") removeFrom(this.#byFeed, sub.stream.feedId, sub);
    if (sub.stream.kind === "public") this.#public.delete(sub);
    if (sub.conn.viewer) removeFrom(this.#byAccount, sub.conn.viewer.accountId, sub);
  }

  #send(sub: Subscription, event: string, payload?: string) {
    sub.conn.send({ stream: sub.stream.label, event, payload });
  }

  /** Sends each subscriber its payload, one frame per stream and payload. */
  #sendAll(subs: Subscription[], event: string, payloadOf: (sub: Subscription) => string | null | undefined) {
    const frames = new Map<string, Map<string, Frame>>();
    for (const sub of subs) {
      const payload = payloadOf(sub);
      if (!payload) continue;
      let byStream = frames.get(payload);
      if (!byStream) {
        byStream = new Map();
        frames.set(payload, byStream);
      }
      const key = keyOf(sub.stream.label);
      let frame = byStream.get(key);
      if (!frame) {
        frame = { stream: sub.stream.label, event, payload };
        byStream.set(key, frame);
      }
      sub.conn.send(frame);
    }
  }

  #on<E extends BusEvent>(event: E, lane: Lane, handle: (payload: BusEvents[E]) => Promise<void>) {
    this.#unsubscribe.push(onBusEvent(this.#rt, event, (payload) => this.#enqueue(lane, () => handle(payload))));
  }

  #enqueue(lane: Lane, task: () => Promise<void>) {
    this.#lanes[lane] = this.#lanes[lane].then(task).catch((error) => {
      log.error("A streaming event failed: {error}", {
        error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      });
    });
  }

  /** The `user` streams of an account (those allowed notifications, with `notifications`), and `user:notification`. */
  #userStreams(accountId: string, notifications: boolean): Subscription[] {
    return [...(this.#byAccount.get(accountId) ?? [])].filter(({ stream }) =>
      stream.name === "user"
        ? !notifications || (stream.kind === "feed" && stream.notifications)
        : notifications && stream.name === "user:notification",
    );
  }

  /** The `user` stream of every signed-in viewer: announcements go to all of them, as on Mastodon. */
  #everyUserStream(): Subscription[] {
    const out: Subscription[] = [];
    for (const subs of this.#byAccount.values()) for (const sub of subs) if (sub.stream.name === "user") out.push(sub);
    return out;
  }

  async #announcement({ id }: BusEvents["announcements.published"]) {
    const subs = this.#everyUserStream();
    if (subs.length === 0) return;
    // As a new announcement is for everyone: unread, and no reaction of theirs.
    const [entity] = renderAnnouncements(this.#rt.config, await announcementsFor(this.#rt, null, id));
    if (!entity) return;
    const json = JSON.stringify(entity);
    this.#sendAll(subs, "announcement", () => json);
  }

  async #announcementReaction({ id, name }: BusEvents["announcements.reaction"]) {
    const subs = this.#everyUserStream();
    if (subs.length === 0) return;
    const json = JSON.stringify({ name, count: await reactionCount(this.#rt, id, name), announcement_id: id });
    this.#sendAll(subs, "announcement.reaction", () => json);
  }

  /** Sends each subscriber its viewer's rendering of the status, as its timeline of `context` shows it. */
  async #sendStatus(subs: Subscription[], statusId: string, event: string, context: "home" | "public") {
    if (subs.length === 0) return;
    const viewers = subs.map((s) => s.conn.viewer?.accountId ?? null);
    const rendered = await renderForViewers(this.#rt, statusId, viewers, context);
    this.#sendAll(subs, event, (sub) => rendered.get(sub.conn.viewer?.accountId ?? null));
  }

  #feedSubs(feeds: Iterable<string>): Subscription[] {
    return [...feeds].flatMap((feed) => [...(this.#byFeed.get(feed) ?? [])]);
  }

  async #feedInserted({ statusId, feeds }: BusEvents["feed.inserted"]) {
    await this.#sendStatus(this.#feedSubs(feeds), statusId, "update", "home");
  }

  async #feedRemoved({ statusId, feeds }: BusEvents["feed.removed"]) {
    this.#sendAll(this.#feedSubs(feeds), "delete", () => statusId);
  }

  /** The public and hashtag streams whose timeline holds the status, for their viewers. */
  async #publicReaders(statusId: string): Promise<Subscription[]> {
    const groups = new Map<string, Subscription[]>();
    for (const sub of this.#public) {
      if (sub.stream.kind !== "public") continue;
      const key = `${sub.stream.name}\u0000${sub.stream.tag ?? ""}`;
      const group = groups.get(key);
      if (group) group.push(sub);
      else groups.set(key, [sub]);
    }
    const out: Subscription[] = [];
    for (const group of groups.values()) {
      const stream = group[0].stream as Extract<Stream, { kind: "public" }>;
      const viewers = [...new Set(group.map((s) => s.conn.viewer?.accountId ?? null))];
      const readers = await publicTimelineReaders(this.#rt, statusId, viewers, stream.query, stream.tag);
      out.push(...group.filter((s) => readers.has(s.conn.viewer?.accountId ?? null)));
    }
    return out;
  }

  async #published({ id }: BusEvents["statuses.published"]) {
    if (this.#public.size === 0) return;
    await this.#sendStatus(await this.#publicReaders(id), id, "update", "public");
  }

  async #editedInFeeds({ id }: BusEvents["statuses.edited"]) {
    if (this.#byFeed.size > 0) {
      const holding = await this.#rt.db
        .selectFrom("feed_entries")
        .select("feed_id")
        .where("status_id", "=", id)
        .where("feed_id", "in", [...this.#byFeed.keys()])
        .execute();
      await this.#sendStatus(this.#feedSubs(holding.map((r) => r.feed_id)), id, "status.update", "home");
    }
  }

  async #editedInPublic({ id }: BusEvents["statuses.edited"]) {
    if (this.#public.size > 0) await this.#sendStatus(await this.#publicReaders(id), id, "status.update", "public");
  }

  async #deleted({ ids, public: wasPublic }: BusEvents["statuses.deleted"]) {
    // The feeds' streams hear of it when the feeds let go of it (feed.removed).
    if (!wasPublic) return;
    for (const id of ids) this.#sendAll([...this.#public], "delete", () => id);
  }

  async #notification({ accountId, id }: BusEvents["notification.created"]) {
    const subs = this.#userStreams(accountId, true);
    if (subs.length === 0) return;
    const row = await getNotification(this.#rt, accountId, id).catch(() => null);
    if (!row) return;
    if (row.status_id && (await hiddenStatusIds(this.#rt, accountId, "notifications", [row.status_id])).size > 0)
      return;
    const views = await loadNotificationViews(this.#rt, accountId, [row]);
    const [entity] = renderNotifications(this.#rt, [row], views);
    if (!entity) return;
    const json = JSON.stringify(entity);
    for (const sub of subs) this.#send(sub, "notification", json);
  }

  async #conversation({ statusId, accountIds }: BusEvents["conversation.updated"]) {
    for (const accountId of new Set(accountIds)) {
      const subs = [...(this.#byAccount.get(accountId) ?? [])].filter((s) => s.stream.name === "direct");
      if (subs.length === 0) continue;
      const row = await conversationEndingWith(this.#rt, accountId, statusId);
      if (!row) continue;
      const views = await loadConversationViews(this.#rt, accountId, [row]);
      const [entity] = renderConversations(this.#rt, [row], views);
      const json = JSON.stringify(entity);
      for (const sub of subs) this.#send(sub, "conversation", json);
    }
  }

  /** Closes the connections whose token was revoked or whose user may no longer sign in. */
  async #recheckTokens() {
    const byToken = new Map<string, Connection[]>();
    for (const conn of this.#byConn.keys()) {
      if (!conn.token) continue;
      const list = byToken.get(conn.token);
      if (list) list.push(conn);
      else byToken.set(conn.token, [conn]);
    }
    for (const [token, conns] of byToken) {
      const auth = await authenticate(this.#rt, token);
      if (auth?.user && !inactiveReason(auth.user)) continue;
      for (const conn of conns) {
        this.close(conn);
        conn.close();
      }
    }
  }
}

const hubs = new WeakMap<Runtime, Hub>();

/** The hub of this runtime (one per thread), made when the first client connects. */
export function hubOf(rt: Runtime): Hub {
  let hub = hubs.get(rt);
  if (!hub) {
    hub = new Hub(rt);
    hubs.set(rt, hub);
  }
  return hub;
}

/** The streaming connections open on this runtime (none before its first client). */
export function openStreams(rt: Runtime): number {
  return hubs.get(rt)?.connections ?? 0;
}

/** Closes the streams of this runtime, if it has any. */
export function closeStreams(rt: Runtime): void {
  hubs.get(rt)?.shutdown();
  hubs.delete(rt);
}
