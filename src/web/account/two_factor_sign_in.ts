// The second step of signing in to an account with two-factor sign-in: after the right password,
// the browser holds a signed, short-lived note of whose sign-in it is (session.ts), and this form
// asks for a code from the app or a recovery code. Tries are limited per account.
import { html } from "hono/html";
import { type Ctx, params, router } from "../../http/hono.ts";
import { TooManyAttempts } from "../../services/auth/sessions.ts";
import { checkSecondFactor } from "../../services/auth/two_factor.ts";
import { type Language, pickLanguage } from "../i18n.ts";
import { hidden } from "../oauth_pages.ts";
import { beginSession, csrfToken, pendingSignIn, safeReturn, setPendingSignIn, validCsrf } from "../session.ts";
import { accountPage, field, formProblem, formToken, noticePage } from "./frame.ts";

export const twoFactorSignInPages = router();

async function codeForm(c: Ctx, lang: Language, returnTo: string, error?: string) {
  const t = lang.t.account.twoFactorSignIn;
  return accountPage(
    c,
    lang,
    t.title,
    html`<p>${t.lead}</p>
${formProblem(error)}
<form method="post" action="/auth/two_factor">
  ${formToken(lang, await csrfToken(c))}
  ${hidden({ return_to: returnTo })}
  ${field({ name: "code", label: t.code, autocomplete: "one-time-code" })}
  <div class="actions"><button class="primary" type="submit">${t.submit}</button></div>
</form>`,
  );
}

/** After the right password of an account with two-factor sign-in: the form for the code. */
export async function askSecondFactor(c: Ctx, lang: Language, userId: string, returnTo: string) {
  await setPendingSignIn(c, userId);
  return c.html(await codeForm(c, lang, returnTo));
}

twoFactorSignInPages.post("/auth/two_factor", async (c) => {
  const p = await params(c);
  const lang = pickLanguage(p.lang, c.req.header("accept-language"));
  const t = lang.t.account.twoFactorSignIn;
  const returnTo = safeReturn(p.return_to);
  if (!(await validCsrf(c, p.authenticity_token))) {
    return c.html(await codeForm(c, lang, returnTo, lang.t.account.expired), 422);
  }
  const userId = await pendingSignIn(c);
  if (!userId) return c.html(noticePage(c, lang, t.title, t.expired, true), 401);
  try {
    if (!(await checkSecondFactor(c.get("rt"), userId, typeof p.code === "string" ? p.code : ""))) {
      return c.html(await codeForm(c, lang, returnTo, t.wrong), 401);
    }
  } catch (error) {
    if (!(error instanceof TooManyAttempts)) throw error;
    for (const [name, value] of Object.entries(error.headers())) c.header(name, value);
    return c.html(await codeForm(c, lang, returnTo, lang.t.account.throttled), 429);
  }
  await beginSession(c, userId);
  return c.redirect(returnTo, 303);
});
