// GET /auth/confirmation: the link in the confirmation mail.
import { router } from "../http/hono.ts";
import { truthy } from "../http/validate.ts";
import { confirmEmail } from "../services/accounts/email_confirmation.ts";
import { messagePage } from "./oauth_pages.ts";

export const confirmationPages = router();

confirmationPages.get("/auth/confirmation", async (c) => {
  const token = c.req.query("confirmation_token") ?? "";
  const site = c.get("rt").config.site.title;
  const confirmed = token ? await confirmEmail(c.get("rt"), token) : null;
  if (!confirmed) {
    return c.html(
      messagePage({ site, title: "Invalid link", message: "This confirmation link is invalid or was already used." }),
      404,
    );
  }
  // Sign-ups made in an app go back to it, as Mastodon's `redirect_to_app` links do.
  if (confirmed.appRedirectUri && truthy(c.req.query("redirect_to_app"))) return c.redirect(confirmed.appRedirectUri);
  if (confirmed.emailChanged) {
    return c.html(
      messagePage({
        site,
        title: "Email address changed",
        message: "Your new email address is confirmed: sign in with it from now on.",
      }),
    );
  }
  const message = confirmed.approved
    ? "Your email address is confirmed. You can now sign in from your app."
    : "Your email address is confirmed. A moderator still has to approve your account; you will be able to sign in once they have.";
  return c.html(messagePage({ site, title: "Email address confirmed", message }));
});
