// The event bus: streaming updates and cache invalidations between the parts and threads of a
// process, and between processes through Redis when REDIS_URL is set.
import { BroadcastChannel } from "node:worker_threads";
import { lazy } from "../lazy.ts";
import { logger } from "../log.ts";
import { forwardToRelay } from "./local_relay.ts";

const ioredis = lazy<typeof import("ioredis")>("ioredis");

export type Handler = (message: string) => void;

export interface Bus {
  publish(channel: string, message: string): Promise<void>;
  /** Returns the function that ends the subscription. */
  subscribe(channel: string, handler: Handler): () => void;
  /** Resolves once the bus's server answers (at once in memory); rejects while it is away. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Subscriptions of this process, by channel. Both buses deliver through it. */
class Listeners {
  readonly map = new Map<string, Set<Handler>>();

  add(channel: string, handler: Handler): boolean {
    let set = this.map.get(channel);
    const first = !set;
    if (!set) {
      set = new Set();
      this.map.set(channel, set);
    }
    set.add(handler);
    return first;
  }

  remove(channel: string, handler: Handler): boolean {
    const set = this.map.get(channel);
    if (!set) return false;
    set.delete(handler);
    if (set.size > 0) return false;
    this.map.delete(channel);
    return true;
  }

  deliver(channel: string, message: string): void {
    for (const handler of this.map.get(channel) ?? []) {
      try {
        handler(message);
      } catch (error) {
        logger("bus").error("A bus handler failed on {channel}: {error}", { channel, error });
      }
    }
  }
}

/**
 * The bus of one process: its threads (see web_threads.ts) hear each other through a
 * BroadcastChannel named `namespace`, so that nothing reaches another server in the same process.
 * With `forwardDir`, what is published also goes to the server running on that DATA_DIR
 * (local_relay.ts): operator commands use it.
 */
export function memoryBus(namespace: string, forwardDir?: string): Bus {
  const listeners = new Listeners();
  const forwarding = new Set<Promise<void>>();
  const threads = new BroadcastChannel(namespace);
  threads.unref();
  threads.onmessage = (event) => {
    const { channel, message } = event.data as { channel: string; message: string };
    listeners.deliver(channel, message);
  };
  return {
    async publish(channel, message) {
      threads.postMessage({ channel, message });
      // Delivered after the publisher's turn, as a Redis round trip would be.
      queueMicrotask(() => listeners.deliver(channel, message));
      if (forwardDir) {
        const sent = forwardToRelay(forwardDir, channel, message);
        forwarding.add(sent);
        void sent.then(() => forwarding.delete(sent));
      }
    },
    subscribe(channel, handler) {
      listeners.add(channel, handler);
      return () => listeners.remove(channel, handler);
    },
    async ping() {},
    async close() {
      await Promise.all(forwarding);
      listeners.map.clear();
      threads.close();
    },
  };
}

/**
 * One publishing and one subscribing connection; a Redis channel is subscribed while anyone here
 * listens. When Redis goes away, both reconnect on their own (the subscriber subscribes again) and
 * what is published meanwhile is lost with a warning: requests never fail for want of the bus.
 */
export function redisBus(url: string, namespace: string): Bus {
  const { Redis } = ioredis();
  // While Redis is away, publishing fails at once (the change is committed; only its live update is
  // lost) rather than holding the request; both connections reconnect by themselves.
  const pub = new Redis(url, { lazyConnect: false, enableOfflineQueue: false, commandTimeout: 1000 });
  const sub = new Redis(url, { lazyConnect: false });
  const listeners = new Listeners();
  const prefix = `${namespace}:`;
  const log = logger("bus");
  for (const [role, conn] of [
    ["publisher", pub],
    ["subscriber", sub],
  ] as const) {
    let lost = false;
    conn.on("error", (error) => log.warn("Redis {role}: {error}", { role, error: String(error) }));
    conn.on("close", () => {
      if (!lost) log.warn("Redis {role}: connection lost, reconnecting", { role });
      lost = true;
    });
    conn.on("ready", () => {
      if (lost) log.info("Redis {role}: reconnected", { role });
      lost = false;
    });
  }
  sub.on("message", (channel: string, message: string) => {
    listeners.deliver(channel.slice(prefix.length), message);
  });
  return {
    async publish(channel, message) {
      try {
        await pub.publish(prefix + channel, message);
      } catch (error) {
        log.warn("Redis: {channel} not published: {error}", { channel, error: String(error) });
      }
    },
    subscribe(channel, handler) {
      // While Redis is away these wait for it (it resubscribes on reconnecting) or fail: never unheard.
      const failed = (error: unknown) => logger("bus").warn("Redis: {error}", { error: String(error) });
      if (listeners.add(channel, handler)) sub.subscribe(prefix + channel).catch(failed);
      return () => {
        if (listeners.remove(channel, handler)) sub.unsubscribe(prefix + channel).catch(failed);
      };
    },
    async ping() {
      // The publisher fails at once while Redis is away (no offline queue), or within its command timeout.
      await pub.ping();
    },
    async close() {
      listeners.map.clear();
      // QUIT waits for Redis to answer: while it is away, the connections are dropped instead.
      await Promise.allSettled([pub, sub].map((c) => (c.status === "ready" ? c.quit() : c.disconnect())));
    },
  };
}
