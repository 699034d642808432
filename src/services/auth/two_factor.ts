// Two-factor sign-in with a TOTP app (RFC 6238: 6 digits, 30 seconds, SHA-1, what every
// authenticator app reads from an otpauth:// URI), through the `otpauth` library, which generates
// and checks the codes and writes the URI. The secret is sealed with SECRET_KEY_BASE. Setting up
// ends with a code from the app, and gives ten single-use recovery codes, shown once and kept as
// keyed hashes (HMAC with SECRET_KEY_BASE: a fast hash, yet the database alone does not give them
// away). A code is accepted once (the time step of the last one is kept) and tries are limited per
// account, on top of the sign-in limits.
import { createHmac, randomBytes } from "node:crypto";
import { Secret, TOTP } from "otpauth";
import type { Db } from "../../db/index.ts";
import { ApiError } from "../../domain/errors.ts";
import { openSecret, sealSecret } from "../../domain/secrets.ts";
import type { Runtime } from "../../runtime.ts";
import { queueMail } from "../mail.ts";
import { mailTexts } from "../mail_texts.ts";
import { clear, hit } from "../rate_limits.ts";
import { invalidateAuth } from "./authenticate.ts";
import { TooManyAttempts } from "./sessions.ts";

const PURPOSE = "totp";
const RECOVERY_CODES = 10;
// Ten tries of a second factor per account in 15 minutes: a 6-digit code can't be guessed that way.
const TRIES = { limit: 10, windowSeconds: 900 };

function totp(rt: Runtime, secret: string, label: string): TOTP {
  return new TOTP({ issuer: rt.config.site.title, label, secret: Secret.fromBase32(secret) });
}

const recoveryHash = (rt: Runtime, code: string) =>
  createHmac("sha256", rt.config.secretKeyBase).update(`recovery:${code.trim().toLowerCase()}`).digest("hex");

async function userRow(rt: Runtime, userId: string) {
  return rt.db
    .selectFrom("users")
    .select(["id", "email", "locale", "otp_secret", "otp_enabled"])
    .where("id", "=", userId)
    .executeTakeFirstOrThrow();
}

export interface TwoFactorSetup {
  /** The secret in base32, for typing into the app. */
  secret: string;
  /** The otpauth:// URI the QR code holds. */
  uri: string;
}

/** The secret to set up (a new one, kept until confirmed; the same one when the page is reloaded). */
export async function startTwoFactorSetup(rt: Runtime, userId: string): Promise<TwoFactorSetup> {
  const user = await userRow(rt, userId);
  if (user.otp_enabled) throw new ApiError(422, "Two-factor sign-in is already on");
  let secret = user.otp_secret ? openSecret(user.otp_secret, rt.config.secretKeyBase, PURPOSE) : null;
  if (!secret) {
    secret = new Secret({ size: 20 }).base32;
    await rt.db
      .updateTable("users")
      .set({ otp_secret: sealSecret(secret, rt.config.secretKeyBase, PURPOSE), otp_last_step: null })
      .where("id", "=", userId)
      .execute();
  }
  return { secret, uri: totp(rt, secret, user.email).toString() };
}

/**
 * Whether `code` is the current TOTP code of the secret, not used before; the step it belongs to is
 * claimed by the update, so a code works once even when two requests race with it.
 */
async function claimTotp(
  rt: Runtime,
  db: Db,
  user: { id: string; email: string; otp_secret: string | null },
  code: string,
) {
  if (!user.otp_secret || !/^\d{6}$/.test(code)) return false;
  const secret = openSecret(user.otp_secret, rt.config.secretKeyBase, PURPOSE);
  const generator = totp(rt, secret, user.email);
  // One step either way, for clocks a little off and codes typed as they change.
  const delta = generator.validate({ token: code, window: 1 });
  if (delta === null) return false;
  const step = generator.counter() + delta;
  const claimed = await db
    .updateTable("users")
    .set({ otp_last_step: step })
    .where("id", "=", user.id)
    .where((eb) => eb.or([eb("otp_last_step", "is", null), eb("otp_last_step", "<", step)]))
    .executeTakeFirst();
  return Number(claimed.numUpdatedRows) === 1;
}

/** Uses a recovery code: deleting its row is what spends it. */
async function claimRecoveryCode(rt: Runtime, userId: string, code: string): Promise<boolean> {
  if (code.trim() === "" || code.length > 64) return false;
  const used = await rt.db
    .deleteFrom("otp_recovery_codes")
    .where("user_id", "=", userId)
    .where("code_hash", "=", recoveryHash(rt, code))
    .executeTakeFirst();
  return Number(used.numDeletedRows) === 1;
}

/** Turns two-factor sign-in on with a code from the app; returns the recovery codes, to show once. */
export async function confirmTwoFactor(rt: Runtime, userId: string, code: string): Promise<string[] | null> {
  const user = await userRow(rt, userId);
  if (user.otp_enabled) throw new ApiError(422, "Two-factor sign-in is already on");
  if (!(await claimTotp(rt, rt.db, user, code.trim()))) return null;
  const codes = Array.from({ length: RECOVERY_CODES }, () => randomBytes(5).toString("hex"));
  const site = rt.config.site.title;
  const t = mailTexts(user.locale).twoFactorEnabled;
  await rt.db.transaction().execute(async (trx) => {
    await trx
      .updateTable("users")
      .set({ otp_enabled: true, updated_at: new Date() })
      .where("id", "=", userId)
      .execute();
    await trx.deleteFrom("otp_recovery_codes").where("user_id", "=", userId).execute();
    await trx
      .insertInto("otp_recovery_codes")
      .values(codes.map((c) => ({ user_id: userId, code_hash: recoveryHash(rt, c) })))
      .execute();
    await queueMail(rt, trx, { to: user.email, subject: t.subject(site), text: t.text(site) });
  });
  await invalidateAuth(rt);
  return codes;
}

/**
 * Checks a second factor: a current TOTP code or an unused recovery code (which is spent). Past
 * the limit of tries it throws TooManyAttempts, right or wrong.
 */
export async function checkSecondFactor(rt: Runtime, userId: string, code: string): Promise<boolean> {
  const key = `two_factor:user:${userId}`;
  const tries = await hit(rt, key, TRIES);
  if (!tries.allowed) throw new TooManyAttempts(tries);
  const user = await userRow(rt, userId);
  if (!user.otp_enabled) return false;
  const given = code.replace(/\s+/g, "");
  const ok = (await claimTotp(rt, rt.db, user, given)) || (await claimRecoveryCode(rt, userId, given));
  if (ok) await clear(rt, key);
  return ok;
}

/** How many recovery codes are left. */
export async function recoveryCodesLeft(rt: Runtime, userId: string): Promise<number> {
  const row = await rt.db
    .selectFrom("otp_recovery_codes")
    .select((eb) => eb.fn.countAll<string | number>().as("n"))
    .where("user_id", "=", userId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Turns two-factor sign-in off; the user proves it with a code, an operator needs none. */
export async function disableTwoFactor(rt: Runtime, userId: string, code: string | null): Promise<boolean> {
  if (code !== null && !(await checkSecondFactor(rt, userId, code))) return false;
  const user = await userRow(rt, userId);
  const site = rt.config.site.title;
  const t = mailTexts(user.locale).twoFactorDisabled;
  await rt.db.transaction().execute(async (trx) => {
    await trx
      .updateTable("users")
      .set({ otp_enabled: false, otp_secret: null, otp_last_step: null, updated_at: new Date() })
      .where("id", "=", userId)
      .execute();
    await trx.deleteFrom("otp_recovery_codes").where("user_id", "=", userId).execute();
    if (user.otp_enabled) await queueMail(rt, trx, { to: user.email, subject: t.subject(site), text: t.text(site) });
  });
  await invalidateAuth(rt);
  return true;
}
