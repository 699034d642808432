// How Rookery's process fits in MEMORY_LIMIT. Each web thread is a whole copy of the app (its code,
// caches and database connection), so the budget decides how many threads run as well as how large
// each one's heap may grow. Measured on this project's 2-core machine (SQLite): the main thread
// (jobs, migrations, checkpoints and a share of the requests) idles at about 170 MB resident and each
// further web thread adds about 70 MB idle and up to 110 MB under load.
import type { Config } from "./config.ts";

const MAIN_THREAD_MB = 200;
const WEB_THREAD_MB = 110;
/** V8's young generation (three semi-spaces): smaller than its default 48 MB per thread. */
export const SEMI_SPACE_MB = 8;
/**
 * How much a heap may grow past what a full collection left before the next one: 2×. Under old
 * generation limits of a few hundred MB V8 grows it by only about 1.35×, which leaves less room than
 * the young generation could promote, so marking started again right after each collection while
 * uploads came in: a 4 MB photo uploaded cost the process about 35 ms more CPU than it does with
 * this (bench/media.ts), most of it in the collector's threads. The limits above still bound every heap.
 */
export const HEAP_GROWING_PERCENT = 100;

/** How many web threads (the main one included) MEMORY_LIMIT holds. */
export function threadsThatFit(limitMb: number): number {
  return 1 + Math.max(0, Math.floor((limitMb - MAIN_THREAD_MB) / WEB_THREAD_MB));
}

export interface HeapLimits {
  /** `--max-old-space-size` of the main thread. */
  mainOldMb: number;
  /** `resourceLimits` of each further web thread. */
  thread: { maxOldGenerationSizeMb: number; maxYoungGenerationSizeMb: number };
}

/**
 * The old generation's limits: room for the largest live set measured under load (about 60 MB in
 * a web thread, 90 in the main one) with space to spare, never more than the budget allows. A
 * thread near its limit sheds load (src/http/memory_pressure.ts) before V8 would end it.
 */
export function heapLimits(memory: Config["memory"]): HeapLimits {
  const clamp = (mb: number, min: number, max: number) => Math.round(Math.min(max, Math.max(min, mb)));
  return {
    mainOldMb: clamp(memory.limitMb * 0.4, 128, 4096),
    thread: {
      maxOldGenerationSizeMb: clamp(memory.limitMb * 0.25, 96, 2048),
      maxYoungGenerationSizeMb: 3 * SEMI_SPACE_MB,
    },
  };
}
