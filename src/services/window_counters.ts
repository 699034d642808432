// Fixed-window counting against a shared store without a write per request. The home timeline
// answers thousands of requests a second; a write each would cost a measurable share of that.
//
// Each thread counts hits locally and adds them to the shared store, which answers with the
// window's total: on a key's first hit in a window, at every `batch`-th hit (1% of the limit, so
// every hit for limits up to 100), and at each hit within the last `batch` of an allowance, waiting
// for the answer; and in the background when a key's total is more than a second old. Between
// writes it decides with the last total it read plus its own unwritten hits.
//
// Precision: one thread alone is exact, and so are limits up to 100. With several threads or
// processes, each decides between its writes on a total that misses the others' hits since, so
// once the limit is passed each of them may let through up to `batch` - 1 more hits before its
// next write shows the allowance spent: with T threads in all, at most about T% over the limit.
// That suits limits meant to stop abuse rather than to meter, and keeps the store's work to a
// write per key and thread every `batch` hits or every second.
import { logger } from "../log.ts";
import type { CounterStore } from "./counter_stores.ts";

const SYNC_MS = 1000;

export interface WindowCount {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** The end of the window: windows are aligned to the epoch, as rack-attack's are. */
  resetAt: Date;
}

interface KeyState {
  windowEnd: number;
  /** The window's total as the store last told it. */
  shared: number;
  /** Hits counted here and not yet added to the store. */
  pending: number;
  syncedAt: number;
  flushing: Promise<void> | null;
}

const log = logger("rate-limits");

export class WindowCounters {
  readonly #store: CounterStore;
  readonly #keys = new Map<string, KeyState>();
  #nextSweep = 0;

  constructor(store: CounterStore) {
    this.#store = store;
  }

  async hit(key: string, limit: number, periodSeconds: number): Promise<WindowCount> {
    const now = Date.now();
    const periodMs = periodSeconds * 1000;
    const windowEnd = now - (now % periodMs) + periodMs;
    this.#sweep(now);
    let state = this.#keys.get(key);
    if (!state || state.windowEnd !== windowEnd) {
      state = { windowEnd, shared: 0, pending: 0, syncedAt: 0, flushing: null };
      this.#keys.set(key, state);
    }
    const resetAt = new Date(windowEnd);
    // Spent: every thread that learns it refuses without asking the store again.
    if (state.shared >= limit) return { allowed: false, limit, remaining: 0, resetAt };
    state.pending++;
    const batch = Math.ceil(limit / 100);
    if (state.syncedAt === 0 || state.pending >= batch || limit - (state.shared + state.pending) < batch) {
      await this.#flush(key, state);
    } else if (!state.flushing && now - state.syncedAt >= SYNC_MS) {
      void this.#flush(key, state);
    }
    const count = state.shared + state.pending;
    return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetAt };
  }

  /** Adds the unflushed hits to the store, after any write of this key still under way. */
  #flush(key: string, state: KeyState): Promise<void> {
    const write = async () => {
      const n = state.pending;
      if (n === 0) return;
      state.pending = 0;
      state.syncedAt = Date.now();
      try {
        state.shared = Math.max(state.shared, await this.#store.add(key, n, new Date(state.windowEnd)));
      } catch (error) {
        // The store is unreachable: keep counting here, and try again with the next write.
        state.pending += n;
        log.warn("Rate-limit counter not shared: {error}", { error: String(error) });
      }
    };
    const next = (state.flushing ?? Promise.resolve()).then(write);
    state.flushing = next;
    void next.finally(() => {
      if (state.flushing === next) state.flushing = null;
    });
    return next;
  }

  /** Forgets keys whose window has ended, once a minute. */
  #sweep(now: number): void {
    if (now < this.#nextSweep) return;
    this.#nextSweep = now + 60_000;
    for (const [key, state] of this.#keys) {
      if (state.windowEnd <= now && !state.flushing) this.#keys.delete(key);
    }
  }
}
