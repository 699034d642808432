// Whether an address may be used to sign up with, or to confirm a sign-up with: the configured
// provider rules, the moderators' email-domain blocks, and their canonical email blocks (answered
// as "taken", so that the block does not tell the person so, as in Mastodon).

import { emailDomainAllowed, isEmailAddress } from "../../domain/emails.ts";
import { type FieldError, fieldError } from "../../domain/errors.ts";
import type { Runtime } from "../../runtime.ts";
import { matchingCanonicalEmailBlocks } from "../moderation/canonical_email_blocks.ts";
import { emailDomainVerdict } from "../moderation/email_domain_blocks.ts";

/** The problem with `email` (already trimmed and lower-cased), or null; `userId` is its would-be owner. */
export async function emailAddressError(rt: Runtime, email: string, userId: string | null): Promise<FieldError | null> {
  if (email === "") return fieldError.blank;
  if (!isEmailAddress(email)) return fieldError.invalid();
  if (!emailDomainAllowed(email, rt.config.emailDomains) || (await emailDomainVerdict(rt, email)) === "blocked") {
    return { error: "ERR_BLOCKED", description: "uses a disallowed e-mail provider" };
  }
  if ((await matchingCanonicalEmailBlocks(rt, null, email)).length > 0) return fieldError.taken;
  let q = rt.db.selectFrom("users").select("id").where("email", "=", email);
  if (userId) q = q.where("id", "!=", userId);
  return (await q.executeTakeFirst()) ? fieldError.taken : null;
}
