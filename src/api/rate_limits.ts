// Mastodon's API throttles (its rack-attack rules): every /api request is counted per token, per
// account and, without a user, per address; paging, media uploads and deletions have tighter
// limits of their own. Answers carry the most nearly spent limit in X-RateLimit-*; past a limit
// the answer is a 429. Preflights never get here (apiHeaders answers them).
import type { MiddlewareHandler } from "hono";
import type { RateLimits } from "../config.ts";
import { type AppEnv, type Ctx, clientIp } from "../http/hono.ts";
import type { Runtime } from "../runtime.ts";
import { isLoopback } from "../services/auth/sessions.ts";
import { addressBucket } from "../services/rate_limits.ts";
import { type WindowCount, WindowCounters } from "../services/window_counters.ts";

interface Caller {
  userId: string | null;
  tokenId: string | null;
  address: string | null;
}

interface Throttle {
  name: string;
  limit: number;
  periodSeconds: number;
  /** Whom the request is counted against, or null when this throttle does not apply to it. */
  key(c: Ctx, caller: Caller): string | null;
}

const MEDIA_UPLOAD = /^\/api\/v\d+\/media\/?$/i;
const DELETE_STATUS = /^\/api\/v1\/statuses\/\d+\/?$/;
const UNREBLOG = /^\/api\/v1\/statuses\/\d+\/unreblog\/?$/;
const PAGING_PARAMS = ["page", "min_id", "max_id", "since_id"];

/** In Mastodon's order: the first one spent answers the 429. */
function throttles(limits: RateLimits): Throttle[] {
  const FIVE_MINUTES = 300;
  return [
    { name: "account", limit: limits.perAccount, periodSeconds: FIVE_MINUTES, key: (_, who) => who.userId },
    { name: "token", limit: limits.perToken, periodSeconds: FIVE_MINUTES, key: (_, who) => who.tokenId },
    {
      name: "address",
      limit: limits.perAddress,
      periodSeconds: FIVE_MINUTES,
      key: (_, who) => (who.userId ? null : who.address),
    },
    {
      name: "media",
      limit: limits.media,
      periodSeconds: 1800,
      key: (c, who) => (c.req.method === "POST" && MEDIA_UPLOAD.test(c.req.path) ? who.userId : null),
    },
    {
      name: "paging",
      limit: limits.paging,
      periodSeconds: 900,
      key: (c, who) => (PAGING_PARAMS.some((p) => c.req.query(p)) ? (who.userId ?? who.address) : null),
    },
    {
      name: "deletes",
      limit: limits.deletes,
      periodSeconds: 1800,
      key: (c, who) =>
        (c.req.method === "POST" && UNREBLOG.test(c.req.path)) ||
        (c.req.method === "DELETE" && DELETE_STATUS.test(c.req.path))
          ? who.userId
          : null,
    },
  ];
}

/** Mastodon writes the reset instant with microseconds. Few instants recur, so each is written once. */
const resetTexts = new Map<number, string>();
function resetHeader(at: Date): string {
  const time = at.getTime();
  let text = resetTexts.get(time);
  if (text === undefined) {
    if (resetTexts.size >= 16) resetTexts.clear();
    text = at.toISOString().replace(/Z$/, "000Z");
    resetTexts.set(time, text);
  }
  return text;
}

function setHeaders(c: Ctx, count: WindowCount): void {
  c.header("X-RateLimit-Limit", String(count.limit));
  c.header("X-RateLimit-Remaining", String(count.remaining));
  c.header("X-RateLimit-Reset", resetHeader(count.resetAt));
}

/** Runs after resolveAuth; one per app, so each thread counts locally (see window_counters.ts). */
export function apiRateLimits(rt: Runtime): MiddlewareHandler<AppEnv> {
  const limits = rt.config.rateLimits;
  if (!limits.enabled) return (_, next) => next();
  const rules = throttles(limits);
  const counters = new WindowCounters(rt.counters);
  return async (c, next) => {
    const ip = clientIp(c);
    if (limits.exemptLoopback && ip && isLoopback(ip)) return next();
    const auth = c.get("auth");
    const caller: Caller = {
      userId: auth?.user?.id ?? null,
      tokenId: auth?.tokenId ?? null,
      address: ip ? addressBucket(ip) : null,
    };
    let tightest: WindowCount | null = null;
    for (const rule of rules) {
      const key = rule.key(c, caller);
      if (key === null) continue;
      const count = await counters.hit(`api:${rule.name}:${key}`, rule.limit, rule.periodSeconds);
      if (!count.allowed) {
        setHeaders(c, count);
        return c.json({ error: "Too many requests" }, 429);
      }
      if (!tightest || count.remaining < tightest.remaining) tightest = count;
    }
    if (tightest) setHeaders(c, tightest);
    await next();
  };
}
