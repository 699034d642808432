// The JSON of the inbox activity being handled, as its server sent it. Fedify's vocabulary drops
// the terms it does not know (Mastodon's blurhash and focalPoint) when it parses an activity, and
// keeps the original JSON only sometimes; the queued message holds it, so the job that hands the
// message to Fedify keeps it here for the listeners to read.
import { AsyncLocalStorage } from "node:async_hooks";

const received = new AsyncLocalStorage<unknown>();

/** Runs `handle` with `json` as the activity being handled. */
export function whileHandling<T>(json: unknown, handle: () => Promise<T>): Promise<T> {
  return received.run(json, handle);
}

/** The JSON of the activity `id` as it arrived, when that is the activity being handled. */
export function receivedJson(id: URL | null): Record<string, unknown> | null {
  const json = received.getStore();
  if (!id || typeof json !== "object" || json === null || Array.isArray(json)) return null;
  return (json as Record<string, unknown>).id === id.href ? (json as Record<string, unknown>) : null;
}
