// Signing up, through an app (POST /api/v1/accounts, as Mastodon's AppSignUpService does) or on the
// sign-up page (/auth/sign_up): the same rules, checks and confirmation mail for both.

import { ApiError, type FieldError, fieldError, forbidden, validationFailed } from "../../domain/errors.ts";
import { isReservedUsername, USERNAME_FORMAT, USERNAME_MAX_LENGTH } from "../../domain/usernames.ts";
import type { Runtime } from "../../runtime.ts";
import { type Application, findApplication } from "../auth/apps.ts";
import { isLoopback } from "../auth/sessions.ts";
import { type IssuedToken, issueToken } from "../auth/tokens.ts";
import { emailDomainVerdict, recordSignUpAttempt } from "../moderation/email_domain_blocks.ts";
import { ipSeverity } from "../moderation/ip_blocks.ts";
import { hit } from "../rate_limits.ts";
import { createLocalUser, takenFields, USER_ATTRIBUTE_LABELS } from "./accounts.ts";
import { emailAddressError } from "./email_addresses.ts";
import { queueConfirmation } from "./email_confirmation.ts";
import { usableInvite, useInvite } from "./invites.ts";

export interface SignUp {
  username?: string;
  email?: string;
  password?: string;
  /** As sent: only `true`, "true" and "1" accept the terms, as in Mastodon. */
  agreement?: unknown;
  locale?: string;
  reason?: string;
  dateOfBirth?: string;
  /** An invite's code: a valid one opens closed sign-ups and approves at once. */
  inviteCode?: string;
}

const PASSWORD_LENGTH = { min: 8, max: 72 };
/** Mastodon's limit on the reason given for a sign-up awaiting approval. */
const REASON_MAX_LENGTH = 420;
const LOCALE_FORMAT = /^[a-z]{2,3}([-_][A-Za-z0-9]{2,8})?$/;

/** What is wrong with a new password, or null: the rule of sign-ups, resets and changes alike. */
export function passwordError(password: string): FieldError | null {
  if (password === "") return fieldError.blank;
  if (password.length < PASSWORD_LENGTH.min) return fieldError.tooShort(PASSWORD_LENGTH.min);
  if (password.length > PASSWORD_LENGTH.max) return fieldError.tooLong(PASSWORD_LENGTH.max);
  return null;
}

/** Collapses whitespace runs and trims, as Rails' `squish` does to usernames. */
const squish = (s: string | undefined) => (s ?? "").replace(/\s+/g, " ").trim();

function ageOn(birth: Date, today: Date): number {
  let age = today.getUTCFullYear() - birth.getUTCFullYear();
  const m = today.getUTCMonth() - birth.getUTCMonth();
  if (m < 0 || (m === 0 && today.getUTCDate() < birth.getUTCDate())) age--;
  return age;
}

function parseDate(value: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return null;
  const date = new Date(`${value}T00:00:00Z`);
  return Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value ? null : date;
}

/** Every problem with a sign-up, per attribute, in the order Mastodon reports them. */
async function validate(rt: Runtime, s: SignUp, invited: boolean): Promise<Record<string, FieldError[]>> {
  const errors: Record<string, FieldError[]> = {};
  const add = (attribute: string, e: FieldError) => {
    errors[attribute] ??= [];
    errors[attribute].push(e);
  };
  const username = squish(s.username);
  const email = (s.email ?? "").trim().toLowerCase();
  const taken = await takenFields(rt.db, username, email);
  const emailError = await emailAddressError(rt, email, null);
  if (emailError) add("email", emailError);

  const passwordProblem = passwordError(s.password ?? "");
  if (passwordProblem) add("password", passwordProblem);

  if (username === "") add("username", fieldError.blank);
  else {
    if (!USERNAME_FORMAT.test(username)) {
      add("username", fieldError.invalid("must contain only letters, numbers and underscores"));
    }
    if (username.length > USERNAME_MAX_LENGTH) add("username", fieldError.tooLong(USERNAME_MAX_LENGTH));
    if (isReservedUsername(username)) add("username", fieldError.reserved);
    if (taken.username) add("username", fieldError.taken);
  }

  const { registrations } = rt.config;
  const reason = (s.reason ?? "").trim();
  // The invited wait for no one, so they owe no reason.
  if (reason === "" && registrations.mode === "approved" && registrations.reasonRequired && !invited) {
    add("reason", fieldError.blank);
  } else if (reason.length > REASON_MAX_LENGTH) add("reason", fieldError.tooLong(REASON_MAX_LENGTH));

  if (![true, "true", "1", 1].includes(s.agreement as never)) add("agreement", fieldError.accepted);
  if (s.locale && !LOCALE_FORMAT.test(s.locale)) add("locale", fieldError.inclusion);

  if (registrations.minAge !== null) {
    // A date that does not parse is no date at all, as Rails casts it.
    const birth = s.dateOfBirth ? parseDate(s.dateOfBirth) : null;
    if (!birth) add("date_of_birth", fieldError.blank);
    else if (ageOn(birth, new Date()) < registrations.minAge) {
      add("date_of_birth", { error: "ERR_BELOW_LIMIT", description: "is below the age limit" });
    }
  }
  return errors;
}

// Mastodon's throttle: 5 sign-ups per address in 30 minutes (this machine itself is not throttled).
const SIGN_UPS = { limit: 5, windowSeconds: 1800 };

async function throttle(rt: Runtime, ip: string | null): Promise<void> {
  if (!ip || isLoopback(ip)) return;
  const limit = await hit(rt, `sign_up:ip:${ip}`, SIGN_UPS);
  if (limit.allowed) return;
  throw new ApiError(429, "Too many requests").withHeaders({
    "X-RateLimit-Limit": String(limit.limit),
    "X-RateLimit-Remaining": "0",
    "X-RateLimit-Reset": limit.resetAt.toISOString(),
  });
}

/**
 * Creates the account and its user and queues the confirmation mail; `app` is the app signed up
 * through (null on the sign-up page), which gets a user token with the scopes it registered (as
 * Mastodon gives them). Returns that token, if any, and whether the account is approved already.
 */
async function register(rt: Runtime, input: SignUp, ip: string | null, app: Application | null) {
  await throttle(rt, ip);
  const invite = input.inviteCode ? await usableInvite(rt, input.inviteCode) : null;
  if (rt.config.registrations.mode === "none" && !invite) throw forbidden();
  // Blocked addresses may not sign up; some must wait for approval (as may some email domains).
  const ipBlock = await ipSeverity(rt, ip);
  if (ipBlock === "sign_up_block" || ipBlock === "no_access") throw forbidden();
  if (typeof input.email === "string") await recordSignUpAttempt(rt, input.email.trim().toLowerCase(), ip);
  const errors = await validate(rt, input, invite !== null);
  if (Object.keys(errors).length > 0) throw validationFailed(errors, USER_ATTRIBUTE_LABELS);

  const email = input.email!.trim().toLowerCase();
  const approved =
    (rt.config.registrations.mode === "open" || invite !== null) &&
    ipBlock !== "sign_up_requires_approval" &&
    (await emailDomainVerdict(rt, email)) !== "approval";
  let token: IssuedToken | null = null;
  await createLocalUser(rt, {
    username: squish(input.username),
    email,
    password: input.password!,
    confirmed: false,
    approved,
    locale: input.locale ?? null,
    reason: input.reason?.trim() || null,
    ip,
    dateOfBirth: rt.config.registrations.minAge !== null ? (input.dateOfBirth ?? null) : null,
    createdByApplicationId: app?.id ?? null,
    inviteId: invite?.id ?? null,
    afterCreate: async (trx, userId) => {
      if (invite) await useInvite(trx, invite.id);
      await queueConfirmation(rt, trx, { id: userId, email, fromApp: app !== null, locale: input.locale ?? null });
      if (app) token = await issueToken(rt, { applicationId: app.id, userId, scopes: app.scopes.split(" ") }, trx);
    },
  });
  return { token: token as IssuedToken | null, approved };
}

/** POST /api/v1/accounts: the new user's token for the app. */
export async function signUp(rt: Runtime, applicationId: string, input: SignUp, ip: string | null) {
  const app = await findApplication(rt, { id: applicationId });
  if (!app) throw forbidden();
  return (await register(rt, input, ip, app)).token!;
}

/** The sign-up page: the account waits for its address to be confirmed (and, maybe, for approval). */
export async function signUpOnWeb(rt: Runtime, input: SignUp, ip: string | null): Promise<{ approved: boolean }> {
  return { approved: (await register(rt, input, ip, null)).approved };
}
