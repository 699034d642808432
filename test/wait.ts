// Waiting for an event in a test: poll until it happens. No budget on how long it may take (a
// loaded machine is slow, not wrong); the long deadline only turns a hang into a failure.
import { setTimeout as sleep } from "node:timers/promises";

/** Polls `check` until it holds, failing after `hangMs`. */
export async function waitUntil(
  what: string,
  check: () => boolean | Promise<boolean>,
  { every = 50, hangMs = 180_000 } = {},
): Promise<void> {
  const hangAt = Date.now() + hangMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > hangAt) throw new Error(`still waiting for ${what} after ${hangMs / 1000} s`);
    await sleep(every);
  }
}
