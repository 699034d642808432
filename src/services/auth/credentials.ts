// A signed-in user changing their own password or email address; both ask for the current password
// (its attempts counted as sign-ins are). A new password ends the user's other web sessions. A new
// address waits in unconfirmed_email until the link mailed to it is followed (the old one signs in
// until then, and is told of the change).
import { ApiError, fieldError, validationFailed } from "../../domain/errors.ts";
import { hashPassword, randomToken, sha256 } from "../../domain/secrets.ts";
import type { Runtime } from "../../runtime.ts";
import { USER_ATTRIBUTE_LABELS } from "../accounts/accounts.ts";
import { emailAddressError } from "../accounts/email_addresses.ts";
import { passwordError } from "../accounts/registration.ts";
import { queueMail } from "../mail.ts";
import { mailTexts } from "../mail_texts.ts";
import { checkPassword, type SessionUser, TooManyAttempts } from "./sessions.ts";
import { endOtherSessions } from "./user_sessions.ts";

/** Throws a 422 naming current_password unless `password` is the user's (a 429 past the sign-in limits). */
export async function requireOwnPassword(rt: Runtime, user: SessionUser, password: string, ip: string | null) {
  let checked: SessionUser | null;
  try {
    checked = await checkPassword(rt, user.email, password, ip);
  } catch (error) {
    if (!(error instanceof TooManyAttempts)) throw error;
    throw new ApiError(429, "Too many requests").withHeaders(error.headers());
  }
  if (checked?.id !== user.id) {
    throw validationFailed({ current_password: [fieldError.invalid()] }, { current_password: "Current password" });
  }
}

export async function changePassword(
  rt: Runtime,
  user: SessionUser,
  input: { current: string; password: string; ip: string | null },
): Promise<void> {
  await requireOwnPassword(rt, user, input.current, input.ip);
  const problem = passwordError(input.password);
  if (problem) throw validationFailed({ password: [problem] });
  const passwordHash = await hashPassword(input.password);
  await rt.db.transaction().execute(async (trx) => {
    await trx
      .updateTable("users")
      .set({ password_hash: passwordHash, updated_at: new Date() })
      .where("id", "=", user.id)
      .execute();
    await endOtherSessions(trx, user.id, user.sessionId);
  });
}

export async function changeEmail(
  rt: Runtime,
  user: SessionUser,
  input: { current: string; email: string; ip: string | null; locale: string },
): Promise<void> {
  await requireOwnPassword(rt, user, input.current, input.ip);
  const email = input.email.trim().toLowerCase();
  if (email === user.email) throw new ApiError(422, "This is already your email address");
  const problem = await emailAddressError(rt, email, user.id);
  if (problem) throw validationFailed({ email: [problem] }, USER_ATTRIBUTE_LABELS);
  const token = randomToken();
  const site = rt.config.site.title;
  const t = mailTexts(user.locale, input.locale);
  const link = `${rt.config.origin}/auth/confirmation?${new URLSearchParams({ confirmation_token: token })}`;
  await rt.db.transaction().execute(async (trx) => {
    await trx
      .updateTable("users")
      .set({ unconfirmed_email: email, confirmation_token_hash: sha256(token), updated_at: new Date() })
      .where("id", "=", user.id)
      .execute();
    await queueMail(rt, trx, {
      to: email,
      subject: t.emailChangeConfirm.subject(site),
      text: t.emailChangeConfirm.text(site, link),
    });
    await queueMail(rt, trx, {
      to: user.email,
      subject: t.emailChanged.subject(site),
      text: t.emailChanged.text(site, email),
    });
  });
}

/** The address waiting for confirmation, if any. */
export async function pendingEmail(rt: Runtime, userId: string): Promise<string | null> {
  const row = await rt.db
    .selectFrom("users")
    .select("unconfirmed_email")
    .where("id", "=", userId)
    .executeTakeFirstOrThrow();
  return row.unconfirmed_email;
}
