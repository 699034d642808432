// Fixed-window counters in the database, so every process shares them (sign-ins, sign-ups, and
// the API's limits when there is no Redis).
import type { Db } from "../db/index.ts";
import type { Runtime } from "../runtime.ts";

export interface Limit {
  /** Requests allowed per window. */
  limit: number;
  windowSeconds: number;
}

export interface LimitState {
  allowed: boolean;
  remaining: number;
  resetAt: Date;
  limit: number;
}

/** Counts one request under `key`; `allowed` is false once the window's allowance is spent. */
export async function hit(rt: Runtime, key: string, { limit, windowSeconds }: Limit): Promise<LimitState> {
  const row = await addToCounter(rt.db, key, 1, new Date(Date.now() + windowSeconds * 1000));
  return {
    allowed: row.count <= limit,
    remaining: Math.max(0, limit - row.count),
    resetAt: row.reset_at,
    limit,
  };
}

/**
 * Adds `n` to the counter under `key` and returns its total. A counter whose window has ended
 * starts again from `n`, with a window ending at `resetAt`.
 */
export async function addToCounter(db: Db, key: string, n: number, resetAt: Date) {
  const now = new Date();
  return db
    .insertInto("rate_limits")
    .values({ key, count: n, reset_at: resetAt })
    .onConflict((oc) =>
      oc.column("key").doUpdateSet((eb) => ({
        count: eb
          .case()
          .when("rate_limits.reset_at", "<=", now)
          .then(n)
          .else(eb("rate_limits.count", "+", n))
          .end(),
        reset_at: eb
          .case()
          .when("rate_limits.reset_at", "<=", now)
          .then(resetAt)
          .else(eb.ref("rate_limits.reset_at"))
          .end(),
      })),
    )
    .returning(["count", "reset_at"])
    .executeTakeFirstOrThrow();
}

/** Forgets a key (a successful sign-in clears the failures counted against an email). */
export async function clear(rt: Runtime, key: string): Promise<void> {
  await rt.db.deleteFrom("rate_limits").where("key", "=", key).execute();
}

/**
 * What an address is counted as: itself for IPv4, its /64 network for IPv6, since one IPv6
 * subscriber usually holds a whole /64 (Mastodon counts the same way).
 */
export function addressBucket(ip: string): string {
  const address = ip.replace(/%.*$/, "");
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1];
  if (!address.includes(":")) return address;
  const [head, tail] = address.split("::");
  const groups = (part: string | undefined) =>
    part ? part.split(":").flatMap((g) => (g.includes(".") ? ["0", "0"] : [g])) : [];
  const left = groups(head);
  const right = groups(tail);
  const full =
    tail === undefined ? left : [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  return `${full
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(":")}::/64`;
}
