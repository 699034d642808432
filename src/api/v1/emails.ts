import { z } from "zod";
import { ApiError } from "../../domain/errors.ts";
import { params, router } from "../../http/hono.ts";
import { parse, zString } from "../../http/validate.ts";
import { isEmailConfirmed, resendConfirmation } from "../../services/accounts/email_confirmation.ts";
import { requireToken } from "../auth.ts";

export const emails = router();

// Meant for the token an app got at sign-up, whose user has not confirmed yet: no active user needed.
emails.post("/api/v1/emails/confirmations", requireToken("write:accounts"), async (c) => {
  const auth = c.get("auth")!;
  // An empty `email` is a (wrong) address, not an absent one: Mastodon checks `params.key?(:email)`.
  const p = parse(z.object({ email: zString() }), await params(c));
  await resendConfirmation(c.get("rt"), { userId: auth.user?.id ?? null, applicationId: auth.applicationId }, p.email);
  return c.json({});
});

// Lets the app that signed someone up see when the mailed link has been followed.
emails.get("/api/v1/emails/check_confirmation", requireToken("read:accounts"), async (c) => {
  const user = c.get("auth")!.user;
  if (!user) throw new ApiError(422, "This method requires an authenticated user");
  return c.json(await isEmailConfirmed(c.get("rt"), user.id));
});
