// How Rookery's process fits in MEMORY_LIMIT. Each web thread is a whole copy of the app (its code,
// caches and database connection), so the budget decides how many threads run as well as how large
// each one's heap may grow. Measured on this project's 2-core machine (SQLite): the main thread
// (jobs, migrations, checkpoints and a share of the requests) idles at about 115 MB resident and
// grows to about 200 MB under load; each further web thread adds about 35 MB idle (18 MB of it what
// any Node worker costs) and up to 110 MB under load.
import type { Config } from "./config.ts";

const MAIN_THREAD_MB = 200;
const WEB_THREAD_MB = 110;
/** V8's young generation (three semi-spaces): smaller than its default 48 MB per thread. */
export const SEMI_SPACE_MB = 8;
/**
 * The main thread's semi-space when it serves every request itself (one web thread: the default on
 * a PostgreSQL of this machine, or a small MEMORY_LIMIT): it takes the young generation the other
 * threads would have had. Measured on the home timeline with 50 connections (PostgreSQL, one
 * thread): 394–435 µs of server CPU per request at 8 MB, 318–328 at 16 MB, 280–290 at 32 MB, most
 * of the difference being scavenges of the requests in flight.
 */
const ALONE_SEMI_SPACE_MB = 32;
/**
 * How far V8 lets the old generation grow past what its last full collection kept, before the
 * next one (`--heap-growing-percent`, a flag of the whole process), for a main thread serving
 * alone. Under a heap limit below 256 MB V8 allows only 1.3×, and the old generation, filled by what
 * requests in flight survive, was then collected in full every few hundred requests: 16–18 times
 * per 10,000 home-timeline requests at 50 connections (PostgreSQL, one thread), 2–4 times at 2×,
 * for 2–15 MB more resident. With web threads beside it, every thread would grow so: on SQLite (two
 * web threads) that bought no throughput (in turns, 2,454 against 2,397 home requests/s without it),
 * and the soak's server, its render caches full, swung between 359 and 430 MB in its first eight
 * minutes, against 396–409 without it (411 at the end). There V8's own factor is kept.
 */
const HEAP_GROWING_PERCENT = 100;

/** How many web threads (the main one included) MEMORY_LIMIT holds. */
export function threadsThatFit(limitMb: number): number {
  return 1 + Math.max(0, Math.floor((limitMb - MAIN_THREAD_MB) / WEB_THREAD_MB));
}

export interface HeapLimits {
  /** `--max-old-space-size` of the main thread. */
  mainOldMb: number;
  /** `--max-semi-space-size` of the main thread. */
  mainSemiMb: number;
  /** `--heap-growing-percent` (every thread), or null for V8's own. */
  growingPercent: number | null;
  /** `resourceLimits` of each further web thread. */
  thread: { maxOldGenerationSizeMb: number; maxYoungGenerationSizeMb: number };
}

/**
 * The old generation's limits: room for the largest live set measured under load (about 60 MB in
 * a web thread, 90 in the main one) with space to spare, never more than the budget allows. A
 * thread near its limit sheds load (src/http/memory_pressure.ts) before V8 would end it.
 */
export function heapLimits(memory: Config["memory"], webThreads: number): HeapLimits {
  const clamp = (mb: number, min: number, max: number) => Math.round(Math.min(max, Math.max(min, mb)));
  const alone = webThreads === 1 && memory.limitMb >= 384;
  return {
    mainOldMb: clamp(memory.limitMb * 0.4, 128, 4096),
    mainSemiMb: alone ? ALONE_SEMI_SPACE_MB : SEMI_SPACE_MB,
    growingPercent: alone ? HEAP_GROWING_PERCENT : null,
    thread: {
      maxOldGenerationSizeMb: clamp(memory.limitMb * 0.25, 96, 2048),
      maxYoungGenerationSizeMb: 3 * SEMI_SPACE_MB,
    },
  };
}

/**
 * Gives back what loading the app needed only while it loaded: the code that survives its first
 * collections makes V8 grow the young generation to its full two semi-spaces (16 MB a thread),
 * which then sit nearly empty. A memory-reducing collection shrinks them; under load they grow
 * again as far as SEMI_SPACE_MB allows. Runs once per thread, when it is ready to serve, and only
 * where the relaunch exposed the collector (`--expose-gc`): a server under NODE_OPTIONS limits of
 * its own keeps V8's default behaviour.
 */
export function releaseStartupMemory(): void {
  globalThis.gc?.({ type: "major", execution: "sync", flavor: "last-resort" });
}
