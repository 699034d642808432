// Confirming a new user's email address: the mailed link, resending it, and asking whether it was
// followed. Only a hash of each link's token is kept.
import { forbidden, validationFailed } from "../../domain/errors.ts";
import { OOB } from "../../domain/redirect_uris.ts";
import { randomToken, sha256 } from "../../domain/secrets.ts";
import type { Runtime } from "../../runtime.ts";
import { invalidateAuth } from "../auth/authenticate.ts";
import { type Mail, queueMail } from "../mail.ts";
import { mailTexts } from "../mail_texts.ts";
import { notifyStaff } from "../notifications/create.ts";
import { USER_ATTRIBUTE_LABELS } from "./accounts.ts";
import { emailAddressError } from "./email_addresses.ts";

/**
 * The mail with the confirmation link, in the user's language. For sign-ups made in an app, the
 * link asks to lead back into that app once confirmed (Mastodon's `redirect_to_app`).
 */
function confirmationMail(rt: Runtime, user: NewLink, token: string): Mail {
  const query = new URLSearchParams({
    confirmation_token: token,
    ...(user.fromApp ? { redirect_to_app: "true" } : {}),
  });
  const link = `${rt.config.origin}/auth/confirmation?${query}`;
  const site = rt.config.site.title;
  const t = mailTexts(user.locale).confirmation;
  return { to: user.email, subject: t.subject(site), text: t.text(site, link) };
}

interface NewLink {
  id: string;
  email: string;
  fromApp: boolean;
  /** The user's language (users.locale). */
  locale: string | null;
}

/** A fresh link for a user, its token hash stored and the mail queued in the caller's transaction. */
export async function queueConfirmation(rt: Runtime, trx: Runtime["db"], user: NewLink): Promise<void> {
  const token = randomToken();
  await trx
    .updateTable("users")
    .set({ email: user.email, unconfirmed_email: null, confirmation_token_hash: sha256(token), updated_at: new Date() })
    .where("id", "=", user.id)
    .execute();
  await queueMail(rt, trx, confirmationMail(rt, user, token));
}

export interface Confirmed {
  /** Whether the user may use the server now, or still waits for a moderator. */
  approved: boolean;
  /** Whether the link confirmed a new address of an account (settings), rather than a sign-up's. */
  emailChanged: boolean;
  /** Where to send the browser afterwards when it asked to go back to the app, if anywhere. */
  appRedirectUri: string | null;
}

/**
 * Confirms the address behind a link's token: a sign-up's, or the new address an account asked to
 * change to, which becomes its address. Null when the token is unknown or used, or when the new
 * address was taken by someone else meanwhile.
 */
export async function confirmEmail(rt: Runtime, token: string): Promise<Confirmed | null> {
  const user = await rt.db
    .selectFrom("users")
    .select(["id", "account_id", "approved", "created_by_application_id", "confirmed_at", "unconfirmed_email"])
    .where("confirmation_token_hash", "=", sha256(token))
    .executeTakeFirst();
  if (!user) return null;
  const newEmail = user.unconfirmed_email;
  if (newEmail && (await emailAddressError(rt, newEmail, user.id))) return null;
  const now = new Date();
  const confirmed = await rt.db
    .updateTable("users")
    .set({
      confirmed_at: user.confirmed_at ?? now,
      ...(newEmail ? { email: newEmail } : {}),
      unconfirmed_email: null,
      confirmation_token_hash: null,
      updated_at: now,
    })
    .where("id", "=", user.id)
    .where("confirmation_token_hash", "=", sha256(token))
    .executeTakeFirst();
  if (Number(confirmed.numUpdatedRows) === 0) return null;
  await invalidateAuth(rt);
  if (!user.confirmed_at) await notifyStaff(rt, { fromAccountId: user.account_id, type: "admin.sign_up" });
  const app = user.created_by_application_id
    ? await rt.db
        .selectFrom("oauth_applications")
        .select("redirect_uris")
        .where("id", "=", user.created_by_application_id)
        .executeTakeFirst()
    : undefined;
  // Mastodon sends the browser to the app's first redirect URI; "oob" leads nowhere.
  const first = app?.redirect_uris[0];
  return {
    approved: user.approved,
    emailChanged: newEmail !== null,
    appRedirectUri: first && first !== OOB ? first : null,
  };
}

/**
 * POST /api/v1/emails/confirmations: a new link, optionally to a corrected address. Only the app
 * the user signed up through may ask, and only while the address awaits confirmation.
 */
export async function resendConfirmation(
  rt: Runtime,
  caller: { userId: string | null; applicationId: string | null },
  newEmail: string | undefined,
): Promise<void> {
  const user = caller.userId
    ? await rt.db
        .selectFrom("users")
        .select(["id", "email", "locale", "confirmed_at", "created_by_application_id"])
        .where("id", "=", caller.userId)
        .executeTakeFirst()
    : undefined;
  if (!user || user.created_by_application_id === null || user.created_by_application_id !== caller.applicationId) {
    throw forbidden("This method is only available to the application the user originally signed-up with");
  }
  if (user.confirmed_at) throw forbidden("This method is only available while the e-mail is awaiting confirmation");
  const email = newEmail === undefined ? user.email : newEmail.trim().toLowerCase();
  if (email !== user.email) {
    const error = await emailAddressError(rt, email, user.id);
    if (error) throw validationFailed({ email: [error] }, USER_ATTRIBUTE_LABELS);
  }
  await rt.db
    .transaction()
    .execute((trx) => queueConfirmation(rt, trx, { id: user.id, email, fromApp: true, locale: user.locale }));
}

/** GET /api/v1/emails/check_confirmation. */
export async function isEmailConfirmed(rt: Runtime, userId: string): Promise<boolean> {
  const user = await rt.db
    .selectFrom("users")
    .select("confirmed_at")
    .where("id", "=", userId)
    .executeTakeFirstOrThrow();
  return user.confirmed_at !== null;
}
