// A thread whose heap is nearly full answers 503 with Retry-After instead of taking more work: V8
// would otherwise end the thread at its limit with every request it holds. The heap is looked at
// a few times a second, not per request; prepared answers (src/http/prepared.ts) cost no heap and
// are served regardless.
import { getHeapStatistics } from "node:v8";
import type { MiddlewareHandler } from "hono";

const CHECK_MS = 250;
const RETRY_AFTER_SECONDS = "5";

/** Whether the heap is past each threshold in use (servers in one thread may differ: tests). */
const pressed = new Map<number, boolean>();
let watching = false;

function check(): void {
  const heap = getHeapStatistics();
  for (const shedAt of pressed.keys()) pressed.set(shedAt, heap.used_heap_size > shedAt * heap.heap_size_limit);
}

/** Sheds requests while this thread's heap is past `shedAt` of its limit. */
export function shedUnderMemoryPressure(shedAt: number): MiddlewareHandler {
  pressed.set(shedAt, false);
  check();
  if (!watching) setInterval(check, CHECK_MS).unref();
  watching = true;
  return (c, next) => {
    if (!pressed.get(shedAt)) return next();
    c.header("Retry-After", RETRY_AFTER_SECONDS);
    return Promise.resolve(c.json({ error: "The server is short of memory; try again in a few seconds" }, 503));
  };
}
