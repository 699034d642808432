// Signing in with email and password, and the web sessions of the sign-in and consent pages.
// Sign-in attempts are counted in the database (rate_limits) rather than in memory, so that every
// process of a scaled-out server shares the counts and a restart does not reset them; a fixed window
// is all the precision a brute-force guard needs.

import { describeDevice } from "../../domain/devices.ts";
import { ApiError } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import type { UserRole } from "../../domain/roles.ts";
import { hashPassword, randomToken, sha256, verifyPassword } from "../../domain/secrets.ts";
import type { Runtime } from "../../runtime.ts";
import { ipSeverity } from "../moderation/ip_blocks.ts";
import { addressBucket, clear, hit, type LimitState } from "../rate_limits.ts";
import { roleOf } from "../roles/lookup.ts";
import { recordSignInPlace } from "./sign_in_places.ts";

export interface SessionUser {
  id: string;
  accountId: string;
  email: string;
  confirmed: boolean;
  approved: boolean;
  disabled: boolean;
  suspended: boolean;
  role: UserRole;
  /** Whether signing in asks for a second factor (src/services/auth/two_factor.ts). */
  otpEnabled: boolean;
  locale: string | null;
  /** The web session the user came with, when they came with one. */
  sessionId: string | null;
}

export class TooManyAttempts extends Error {
  readonly resetAt: Date;
  readonly limit: number;
  constructor(state: LimitState) {
    super("Too many attempts");
    this.resetAt = state.resetAt;
    this.limit = state.limit;
  }

  /** The headers of Mastodon's throttled answers. */
  headers(): Record<string, string> {
    return {
      "Retry-After": String(Math.max(1, Math.ceil((this.resetAt.getTime() - Date.now()) / 1000))),
      "X-RateLimit-Limit": String(this.limit),
      "X-RateLimit-Remaining": "0",
      "X-RateLimit-Reset": this.resetAt.toISOString(),
    };
  }
}

// Mastodon's throttles: 25 sign-in attempts per IP in 5 minutes, 25 per account in an hour.
// Like Mastodon, requests from this machine itself are not throttled by address.
const PER_IP = { limit: 25, windowSeconds: 300 };
const PER_EMAIL = { limit: 25, windowSeconds: 3600 };

/** How long a web session lasts after signing in. */
export const SESSION_DAYS = 30;
const SESSION_MS = SESSION_DAYS * 86_400_000;
// last_seen_at moves in steps of this much, not on every page.
const SEEN_STEP_MS = 3_600_000;

function userQuery(rt: Runtime) {
  return rt.db
    .selectFrom("users as u")
    .innerJoin("accounts as a", "a.id", "u.account_id")
    .select([
      "u.id",
      "u.account_id as accountId",
      "u.email",
      "u.password_hash",
      "u.confirmed_at",
      "u.approved",
      "u.disabled",
      "u.role_id",
      "u.otp_enabled",
      "u.locale",
      "a.suspended_at",
    ]);
}

async function toSessionUser(
  rt: Runtime,
  row: Awaited<ReturnType<ReturnType<typeof userQuery>["executeTakeFirstOrThrow"]>>,
  sessionId: string | null = null,
): Promise<SessionUser> {
  return {
    id: row.id,
    accountId: row.accountId,
    email: row.email,
    confirmed: row.confirmed_at !== null,
    approved: row.approved,
    disabled: row.disabled,
    suspended: row.suspended_at !== null,
    role: await roleOf(rt, row.role_id),
    otpEnabled: row.otp_enabled,
    locale: row.locale,
    sessionId,
  };
}

let decoy: Promise<string> | null = null;
const decoyHash = () => {
  decoy ??= hashPassword(randomToken());
  return decoy;
};

/**
 * The user with this email and password, or null. Attempts are counted per IP and per email;
 * past the limits this throws TooManyAttempts whatever the password. An address under a
 * `no_access` IP block is refused with Mastodon's bare 403.
 */
export async function checkPassword(
  rt: Runtime,
  email: string,
  password: string,
  ip: string | null,
): Promise<SessionUser | null> {
  const address = email.trim().toLowerCase();
  const byEmail = await hit(rt, `sign_in:email:${address}`, PER_EMAIL);
  const byIp = ip && !isLoopback(ip) ? await hit(rt, `sign_in:ip:${addressBucket(ip)}`, PER_IP) : null;
  if (!byEmail.allowed) throw new TooManyAttempts(byEmail);
  if (byIp && !byIp.allowed) throw new TooManyAttempts(byIp);
  if (ip && (await ipSeverity(rt, ip)) === "no_access") throw new ApiError(403, "Forbidden");
  const row = await userQuery(rt).where("u.email", "=", address).executeTakeFirst();
  // An unknown address costs the same time as a wrong password, so timing can't tell who has an account.
  const valid = await verifyPassword(password, row?.password_hash ?? (await decoyHash()));
  if (!row || !valid) return null;
  await clear(rt, `sign_in:email:${address}`);
  return toSessionUser(rt, row);
}

/**
 * Opens a web session; returns its token (only a hash is kept). The user's stale sessions go, and a
 * sign-in from a new address or device is told to the user by mail.
 */
export async function createSession(
  rt: Runtime,
  userId: string,
  meta: { ip: string | null; userAgent: string | null },
): Promise<string> {
  const token = randomToken();
  const now = new Date();
  await rt.db.transaction().execute(async (trx) => {
    await trx
      .deleteFrom("web_sessions")
      .where("user_id", "=", userId)
      .where("created_at", "<=", new Date(now.getTime() - SESSION_MS))
      .execute();
    await trx
      .insertInto("web_sessions")
      .values({
        id: newId(),
        token_hash: sha256(token),
        user_id: userId,
        ip: meta.ip,
        user_agent: meta.userAgent?.slice(0, 255) ?? null,
        created_at: now,
        last_seen_at: now,
      })
      .execute();
    await trx.updateTable("users").set({ current_sign_in_at: now }).where("id", "=", userId).execute();
    await recordSignInPlace(rt, trx, userId, { ip: meta.ip, device: describeDevice(meta.userAgent), at: now });
  });
  return token;
}

/** The user of a live session, or null (unknown, signed out, or older than SESSION_DAYS). */
export async function sessionUser(rt: Runtime, token: string): Promise<SessionUser | null> {
  const now = Date.now();
  const row = await userQuery(rt)
    .innerJoin("web_sessions as s", "s.user_id", "u.id")
    .select(["s.id as sessionId", "s.last_seen_at"])
    .where("s.token_hash", "=", sha256(token))
    .where("s.created_at", ">", new Date(now - SESSION_MS))
    .executeTakeFirst();
  if (!row) return null;
  if (now - row.last_seen_at.getTime() > SEEN_STEP_MS) {
    await rt.db
      .updateTable("web_sessions")
      .set({ last_seen_at: new Date(now) })
      .where("id", "=", row.sessionId)
      .execute();
  }
  return toSessionUser(rt, row, row.sessionId);
}

/** Signs a session out; its cookie stops working at once. */
export async function endSession(rt: Runtime, token: string): Promise<void> {
  await rt.db.deleteFrom("web_sessions").where("token_hash", "=", sha256(token)).execute();
}

export function isLoopback(ip: string): boolean {
  return ip === "::1" || ip.startsWith("127.") || ip.startsWith("::ffff:127.");
}
