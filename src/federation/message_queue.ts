// Fedify's message queue over Rookery's durable job queue: an activity a signed inbox request
// brought (and anything else Fedify defers) becomes a `federation.fedify` job, run by whichever
// worker claims it, with the queue's leases and retries. Fedify never listens itself
// (manuallyStartQueue); the job handler hands the message back to Fedify.
import type { MessageQueue, MessageQueueEnqueueOptions } from "@fedify/fedify";
import type { Queue } from "../jobs/queue.ts";

declare module "../jobs/queue.ts" {
  interface JobPayloads {
    "federation.fedify": { message: unknown };
  }
}

/** Inbox work is tried for about a day, as deliveries are (backoff doubles up to six hours). */
export const INBOX_MAX_ATTEMPTS = 16;

export function jobMessageQueue(queue: Queue): MessageQueue {
  const enqueue = async (message: unknown, options?: MessageQueueEnqueueOptions) => {
    const delay = options?.delay?.total("millisecond") ?? 0;
    await queue.enqueue(
      "federation.fedify",
      { message },
      { runAt: delay > 0 ? new Date(Date.now() + delay) : undefined, maxAttempts: INBOX_MAX_ATTEMPTS },
    );
  };
  return {
    // The job queue retries a failed job with backoff: Fedify leaves retrying to it.
    nativeRetrial: true,
    enqueue,
    async enqueueMany(messages, options) {
      for (const message of messages) await enqueue(message, options);
    },
    async listen() {
      throw new Error("Fedify's messages are run by Rookery's job worker");
    },
  };
}
