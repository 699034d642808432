// Resolving an access token to who is calling. Every authenticated request asks, so answers are
// cached for a minute; revoking a token or changing a user publishes `auth:invalidate` on the bus,
// which empties the cache of every process.
import type { UserRole } from "../../domain/roles.ts";
import { sha256 } from "../../domain/secrets.ts";
import type { Runtime } from "../../runtime.ts";
import { rolesOf } from "../roles/lookup.ts";

export interface AuthUser {
  id: string;
  accountId: string;
  role: UserRole;
  confirmed: boolean;
  approved: boolean;
  disabled: boolean;
  suspended: boolean;
  locale: string | null;
}

export interface Auth {
  tokenId: string;
  scopes: string[];
  applicationId: string | null;
  /** Null for app-only tokens (client_credentials). */
  user: AuthUser | null;
}

const TTL_MS = 60_000;
const MAX_ENTRIES = 10_000;
const INVALIDATE = "auth:invalidate";

interface Entry {
  auth: Auth | null;
  expires: number;
}

const caches = new WeakMap<Runtime, Map<string, Entry>>();

function cacheOf(rt: Runtime): Map<string, Entry> {
  let cache = caches.get(rt);
  if (!cache) {
    const fresh = new Map<string, Entry>();
    rt.bus.subscribe(INVALIDATE, () => fresh.clear());
    caches.set(rt, fresh);
    cache = fresh;
  }
  return cache;
}

/** Tells every process to forget cached tokens (after a revoke, a suspension, a role change…). */
export async function invalidateAuth(rt: Runtime): Promise<void> {
  cacheOf(rt).clear();
  await rt.bus.publish(INVALIDATE, "");
}

/** Calls `listener` whenever tokens may have been revoked or users changed, in any process. */
export function onAuthInvalidated(rt: Runtime, listener: () => void): () => void {
  return rt.bus.subscribe(INVALIDATE, listener);
}

export async function authenticate(rt: Runtime, token: string): Promise<Auth | null> {
  // The cache is keyed by the token itself, which this process holds anyway while serving it, so
  // that a hit costs no hashing.
  const cache = cacheOf(rt);
  const now = Date.now();
  const hit = cache.get(token);
  if (hit && hit.expires > now) return hit.auth;
  const hash = sha256(token);

  const row = await rt.db
    .selectFrom("oauth_access_tokens as t")
    .leftJoin("users as u", "u.id", "t.user_id")
    .leftJoin("accounts as a", "a.id", "u.account_id")
    .select([
      "t.id as token_id",
      "t.scopes",
      "t.application_id",
      "u.id as user_id",
      "u.account_id",
      "u.role_id",
      "u.confirmed_at",
      "u.approved",
      "u.disabled",
      "u.locale",
      "a.suspended_at",
    ])
    .where("t.token_hash", "=", hash)
    .where("t.revoked_at", "is", null)
    .executeTakeFirst();

  const roleOf = row?.user_id ? await rolesOf(rt) : null;
  const auth: Auth | null = row
    ? {
        tokenId: row.token_id,
        scopes: row.scopes.split(" ").filter(Boolean),
        applicationId: row.application_id,
        user:
          row.user_id && row.account_id && roleOf
            ? {
                id: row.user_id,
                accountId: row.account_id,
                role: roleOf(row.role_id),
                confirmed: row.confirmed_at !== null,
                approved: row.approved ?? false,
                disabled: row.disabled ?? false,
                suspended: row.suspended_at !== null,
                locale: row.locale,
              }
            : null,
      }
    : null;
  if (cache.size >= MAX_ENTRIES) cache.clear();
  cache.set(token, { auth, expires: now + TTL_MS });
  if (auth?.user) void recordActivity(rt, auth);
  return auth;
}

const seen = new WeakMap<Runtime, Set<string>>();

/** ISO week of a date, as `2026-W47`. */
export function isoWeek(date: Date): string {
  const d = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
  const day = d.getUTCDay() || 7;
  d.setUTCDate(d.getUTCDate() + 4 - day);
  const yearStart = Date.UTC(d.getUTCFullYear(), 0, 1);
  const week = Math.ceil(((d.getTime() - yearStart) / 86_400_000 + 1) / 7);
  return `${d.getUTCFullYear()}-W${String(week).padStart(2, "0")}`;
}

/**
 * Counts the user in this week's logins (/api/v1/instance/activity) and stamps the token's last use
 * (to the hour). Each is written once per process and period.
 */
async function recordActivity(rt: Runtime, auth: Auth): Promise<void> {
  const now = new Date();
  const week = isoWeek(now);
  const hour = Math.floor(now.getTime() / 3_600_000);
  let done = seen.get(rt);
  if (!done) {
    done = new Set();
    seen.set(rt, done);
  }
  const weekKey = `w:${week}:${auth.user!.accountId}`;
  const tokenKey = `t:${hour}:${auth.tokenId}`;
  try {
    if (!done.has(weekKey)) {
      done.add(weekKey);
      await rt.db
        .insertInto("weekly_activity")
        .values({ week, account_id: auth.user!.accountId })
        .onConflict((oc) => oc.doNothing())
        .execute();
    }
    if (!done.has(tokenKey)) {
      done.add(tokenKey);
      await rt.db
        .updateTable("oauth_access_tokens")
        .set({ last_used_at: now })
        .where("id", "=", auth.tokenId)
        .execute();
    }
  } catch {
    done.delete(weekKey);
    done.delete(tokenKey);
  }
  if (done.size > MAX_ENTRIES) done.clear();
}
