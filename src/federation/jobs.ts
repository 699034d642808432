// The job handlers of federation: Fedify's deferred work (inbox activities), building and
// distributing a local action's activity, one delivery, and reading a remote account's pins.
import type { JobPayloads } from "../jobs/queue.ts";
import type { Runtime } from "../runtime.ts";
import { federationOf } from "./federation.ts";
import { whileHandling } from "./received.ts";

export { deliver } from "./delivery.ts";
export { distribute } from "./distribute.ts";
export { syncFeatured } from "./featured.ts";

export async function runFedifyMessage(rt: Runtime, { message }: JobPayloads["federation.fedify"]): Promise<void> {
  const activity = (message as { activity?: unknown } | null)?.activity;
  await whileHandling(activity, () => federationOf(rt).processQueuedTask(rt, message as never));
}
