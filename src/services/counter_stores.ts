// Where the API's rate-limit counters are shared by every thread and process: Redis when
// REDIS_URL is set (an INCRBY is cheaper than a database write, and Redis is there at that scale),
// the database's rate_limits table otherwise.

import type { Db } from "../db/index.ts";
import { lazy } from "../lazy.ts";
import { logger } from "../log.ts";
import { addToCounter } from "./rate_limits.ts";

const ioredis = lazy<typeof import("ioredis")>("ioredis");

export interface CounterStore {
  /** Adds `n` to `key`'s counter of the window ending at `resetAt`; returns the window's total. */
  add(key: string, n: number, resetAt: Date): Promise<number>;
  close(): Promise<void>;
}

/** Every address and token seen leaves a row; rows of ended windows go once an hour. */
const PRUNE_MS = 3_600_000;

export function databaseCounters(db: Db): CounterStore {
  let nextPrune = Date.now() + PRUNE_MS;
  return {
    async add(key, n, resetAt) {
      if (Date.now() >= nextPrune) {
        nextPrune = Date.now() + PRUNE_MS;
        void deleteEnded(db);
      }
      return (await addToCounter(db, key, n, resetAt)).count;
    },
    async close() {},
  };
}

async function deleteEnded(db: Db): Promise<void> {
  try {
    await db.deleteFrom("rate_limits").where("reset_at", "<=", new Date()).execute();
  } catch (error) {
    logger("rate-limits").warn("Ended rate-limit counters not deleted: {error}", { error: String(error) });
  }
}

/** One key per window, expiring with it: a late write to an ended window touches nothing current. */
export function redisCounters(url: string, namespace: string): CounterStore {
  // Connects on first use: a server with the limits turned off never opens it.
  const redis = new (ioredis().Redis)(url, { lazyConnect: true, maxRetriesPerRequest: 3 });
  redis.on("error", (error) => logger("rate-limits").warn("Redis: {error}", { error: String(error) }));
  return {
    async add(key, n, resetAt) {
      const name = `${namespace}:rate:${key}:${resetAt.getTime()}`;
      const replies = await redis
        .multi()
        .incrby(name, n)
        .pexpireat(name, resetAt.getTime() + 1000)
        .exec();
      const [error, total] = replies?.[0] ?? [new Error("no reply from Redis"), 0];
      if (error) throw error;
      return Number(total);
    },
    async close() {
      if (redis.status === "wait") redis.disconnect();
      else await redis.quit().catch(() => redis.disconnect());
    },
  };
}
