// "Forgot your password?": a mailed link that works once and for RESET_HOURS (Mastodon's 6), only
// its token's hash kept. Asking never tells whether an address has an account: the answer is the same
// either way, and the throttle counts every address asked about. Choosing the new password ends every
// web session and revokes every access token of the account, as Mastodon's reset does.
import { validationFailed } from "../../domain/errors.ts";
import { hashPassword, randomToken, sha256 } from "../../domain/secrets.ts";
import type { Runtime } from "../../runtime.ts";
import { passwordError } from "../accounts/registration.ts";
import { queueMail } from "../mail.ts";
import { mailTexts } from "../mail_texts.ts";
import { addressBucket, clear, hit } from "../rate_limits.ts";
import { invalidateAuth } from "./authenticate.ts";
import { isLoopback, TooManyAttempts } from "./sessions.ts";
import { revokeUserTokens } from "./tokens.ts";
import { endOtherSessions } from "./user_sessions.ts";

export const RESET_HOURS = 6;
// Mastodon's throttles of reset requests: 5 per address asked about, and 5 per IP, in 30 minutes.
const PER_EMAIL = { limit: 5, windowSeconds: 1800 };
const PER_IP = { limit: 5, windowSeconds: 1800 };

/** Mails a reset link to `email` if it is a user's (in their language, else `locale`). */
export async function requestPasswordReset(
  rt: Runtime,
  input: { email: string; ip: string | null; locale: string },
): Promise<void> {
  const email = input.email.trim().toLowerCase();
  const byEmail = await hit(rt, `password_reset:email:${email}`, PER_EMAIL);
  if (!byEmail.allowed) throw new TooManyAttempts(byEmail);
  if (input.ip && !isLoopback(input.ip)) {
    const byIp = await hit(rt, `password_reset:ip:${addressBucket(input.ip)}`, PER_IP);
    if (!byIp.allowed) throw new TooManyAttempts(byIp);
  }
  const user = await rt.db
    .selectFrom("users as u")
    .innerJoin("accounts as a", "a.id", "u.account_id")
    .select(["u.id", "u.locale"])
    .where("u.email", "=", email)
    .where("a.suspended_at", "is", null)
    .executeTakeFirst();
  if (!user) return;
  const token = randomToken();
  const site = rt.config.site.title;
  const t = mailTexts(user.locale, input.locale).passwordReset;
  const link = `${rt.config.origin}/auth/password/edit?${new URLSearchParams({ reset_password_token: token })}`;
  await rt.db.transaction().execute(async (trx) => {
    await trx
      .updateTable("users")
      .set({ reset_password_token_hash: sha256(token), reset_password_sent_at: new Date() })
      .where("id", "=", user.id)
      .execute();
    await queueMail(rt, trx, { to: email, subject: t.subject(site), text: t.text(site, link, RESET_HOURS) });
  });
}

/** The user a reset link is for, while it is unused and not expired. */
export async function resetLinkUser(rt: Runtime, token: string): Promise<{ id: string } | null> {
  if (!token) return null;
  const user = await rt.db
    .selectFrom("users")
    .select("id")
    .where("reset_password_token_hash", "=", sha256(token))
    .where("reset_password_sent_at", ">", new Date(Date.now() - RESET_HOURS * 3_600_000))
    .executeTakeFirst();
  return user ?? null;
}

/**
 * Sets the new password through a reset link; false when the link is unknown, used or expired.
 * Every web session ends and every token is revoked.
 */
export async function resetPassword(rt: Runtime, token: string, password: string): Promise<boolean> {
  const problem = passwordError(password);
  if (problem) throw validationFailed({ password: [problem] });
  const user = await resetLinkUser(rt, token);
  if (!user) return false;
  const passwordHash = await hashPassword(password);
  const done = await rt.db.transaction().execute(async (trx) => {
    // The link's hash is cleared by the same statement that uses it: two submissions, one reset.
    const claimed = await trx
      .updateTable("users")
      .set({
        password_hash: passwordHash,
        reset_password_token_hash: null,
        reset_password_sent_at: null,
        updated_at: new Date(),
      })
      .where("id", "=", user.id)
      .where("reset_password_token_hash", "=", sha256(token))
      .returning("email")
      .executeTakeFirst();
    if (!claimed) return null;
    await endOtherSessions(trx, user.id, null);
    await revokeUserTokens(trx, user.id);
    return claimed;
  });
  if (!done) return false;
  await clear(rt, `sign_in:email:${done.email}`);
  await invalidateAuth(rt);
  return true;
}
