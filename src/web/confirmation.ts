// GET /auth/confirmation: the link in the confirmation mail, answered in the browser's language.
import { router } from "../http/hono.ts";
import { truthy } from "../http/validate.ts";
import { confirmEmail } from "../services/accounts/email_confirmation.ts";
import { pickLanguage } from "./i18n.ts";
import { messagePage } from "./oauth_pages.ts";

export const confirmationPages = router();

confirmationPages.get("/auth/confirmation", async (c) => {
  const token = c.req.query("confirmation_token") ?? "";
  const site = c.get("rt").config.site.title;
  const lang = pickLanguage(c.req.query("lang"), c.req.header("accept-language"));
  const t = lang.t.account.confirmation;
  const confirmed = token ? await confirmEmail(c.get("rt"), token) : null;
  if (!confirmed) return c.html(messagePage({ site, lang, title: t.invalidTitle, message: t.invalid }), 404);
  // Sign-ups made in an app go back to it, as Mastodon's `redirect_to_app` links do.
  if (confirmed.appRedirectUri && truthy(c.req.query("redirect_to_app"))) return c.redirect(confirmed.appRedirectUri);
  if (confirmed.emailChanged) return c.html(messagePage({ site, lang, title: t.changedTitle, message: t.changed }));
  const message = confirmed.approved ? t.done : t.doneApproval;
  return c.html(messagePage({ site, lang, title: t.doneTitle, message }));
});
