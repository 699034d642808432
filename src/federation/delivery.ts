// Delivering one activity to one inbox: a POST signed (draft-cavage HTTP signature with a digest,
// which every server checks) with the sending actor's RSA key, sent through src/net. A failure is
// retried by the job queue with exponential backoff for about a day; a server that keeps failing
// opens its circuit breaker (kept with the server's last contact in
// src/services/federation/server_health.ts), and deliveries to it then fail at once, without a
// request, until the breaker lets one through again. A refusal (4xx other than 408 and 429) is
// final, as on Mastodon. One process sends at most PER_SERVER deliveries to a server at once.
import { signRequest } from "@fedify/fedify";
import { logger } from "../log.ts";
import { FetchError } from "../net/fetch.ts";
import { outgoing } from "../net/outgoing.ts";
import type { Runtime } from "../runtime.ts";
import { type Breaker, readBreaker, recordContact, writeBreaker } from "../services/federation/server_health.ts";
import { actorKeyPairs } from "./keys.ts";

declare module "../jobs/queue.ts" {
  interface JobPayloads {
    /** One signed POST of `body` (an activity) to `inbox`, as the local actor `owner` (`keyId`). */
    "federation.deliver": { inbox: string; owner: string; keyId: string; body: string };
  }
}

const log = logger("federation");

/** About a day of attempts: the backoff doubles from a second up to six hours. */
export const DELIVERY_MAX_ATTEMPTS = 17;
/** Consecutive failures after which a server's breaker opens. */
const BREAKER_THRESHOLD = 5;
const BREAKER_MIN_MS = 60_000;
const BREAKER_MAX_MS = 3600_000;

/** Deliveries to one server at once from one process, so that a busy queue does not flood it. */
const PER_SERVER = 2;
const active = new Map<string, number>();
const waiting = new Map<string, (() => void)[]>();

async function acquire(host: string): Promise<void> {
  while ((active.get(host) ?? 0) >= PER_SERVER) {
    await new Promise<void>((resolve) => {
      const queue = waiting.get(host) ?? [];
      queue.push(resolve);
      waiting.set(host, queue);
    });
  }
  active.set(host, (active.get(host) ?? 0) + 1);
}

function release(host: string): void {
  const left = (active.get(host) ?? 1) - 1;
  if (left > 0) active.set(host, left);
  else active.delete(host);
  const queue = waiting.get(host);
  const next = queue?.shift();
  if (queue && queue.length === 0) waiting.delete(host);
  next?.();
}

/** Why a delivery failed for now; the job queue tries again later. */
export class DeliveryFailed extends Error {}

export async function deliver(rt: Runtime, job: { inbox: string; owner: string; keyId: string; body: string }) {
  const host = new URL(job.inbox).host;
  const breaker = await readBreaker(rt, host);
  if (breaker && breaker.openUntil > Date.now()) {
    throw new DeliveryFailed(
      `${host} has failed ${breaker.failures} times in a row; not trying before its breaker closes`,
    );
  }
  const keys = await actorKeyPairs(rt.db, job.owner);
  const unsigned = new Request(job.inbox, {
    method: "POST",
    headers: { "content-type": "application/activity+json", accept: "application/activity+json" },
    body: job.body,
  });
  const signed = await signRequest(unsigned, keys.rsa.privateKey, new URL(job.keyId));
  let status: number;
  await acquire(host);
  try {
    const res = await outgoing(rt.config)(job.inbox, {
      method: "POST",
      headers: Object.fromEntries(signed.headers),
      body: job.body,
      timeoutMs: rt.config.deliveryTimeoutMs,
      maxBytes: 64 * 1024,
      maxRedirects: 0,
    });
    status = res.status;
  } catch (error) {
    if (error instanceof FetchError && error.reason === "refused") {
      log.info("Not delivering to {inbox}: {reason}", { inbox: job.inbox, reason: error.message });
      return;
    }
    rt.metrics?.delivery(host, "failed");
    await failed(rt, host, breaker);
    throw error;
  } finally {
    release(host);
  }
  if (status >= 200 && status < 300) {
    rt.metrics?.delivery(host, "delivered");
    if (breaker) await writeBreaker(rt, host, null);
    await recordContact(rt, host, "delivered");
    return;
  }
  if (status >= 400 && status < 500 && status !== 408 && status !== 429) {
    rt.metrics?.delivery(host, "refused");
    log.info("{inbox} refused an activity with HTTP {status}; not trying again", { inbox: job.inbox, status });
    return;
  }
  rt.metrics?.delivery(host, "failed");
  await failed(rt, host, breaker);
  throw new DeliveryFailed(`${job.inbox} answered HTTP ${status}`);
}

async function failed(rt: Runtime, host: string, breaker: Breaker | null): Promise<void> {
  const failures = (breaker?.failures ?? 0) + 1;
  const openFor =
    failures >= BREAKER_THRESHOLD ? Math.min(BREAKER_MIN_MS * 2 ** (failures - BREAKER_THRESHOLD), BREAKER_MAX_MS) : 0;
  await writeBreaker(rt, host, { failures, openUntil: Date.now() + openFor });
}
