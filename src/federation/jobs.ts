// The job handlers of federation: Fedify's deferred work (inbox activities), building and
// distributing a local action's activity, one delivery, reading a remote account's pins, and
// walking a remote status's replies.
import type { JobPayloads } from "../jobs/queue.ts";
import type { Runtime } from "../runtime.ts";
import { mastodonAddressing } from "./addressing.ts";
import { federationOf } from "./federation.ts";
import { whileHandling } from "./received.ts";

export { deliver } from "./delivery.ts";
export { distribute } from "./distribute.ts";
export { syncFeatured } from "./featured.ts";
export { fetchReplies } from "./replies.ts";

/**
 * Runs an inbox activity. Its addressing is read as Mastodon reads it first: the bare `Public`,
 * which JSON-LD does not know but Mastodon takes for the public collection, as its full URI.
 */
export async function runFedifyMessage(rt: Runtime, { message }: JobPayloads["federation.fedify"]): Promise<void> {
  const queued = message as { activity?: unknown } | null;
  const activity = mastodonAddressing(queued?.activity);
  const task = queued && typeof queued === "object" ? { ...queued, activity } : queued;
  await whileHandling(activity, () => federationOf(rt).processQueuedTask(rt, task as never));
}
