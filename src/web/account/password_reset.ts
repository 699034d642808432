// "Forgot your password?": /auth/password/new asks for the address and mails the link, which opens
// /auth/password/edit; its form posts the new password to /auth/password. The answer to the address
// is the same whether or not it belongs to an account.
import { html } from "hono/html";
import { type Ctx, clientIp, params, router } from "../../http/hono.ts";
import { requestPasswordReset, resetLinkUser, resetPassword } from "../../services/auth/password_reset.ts";
import { TooManyAttempts } from "../../services/auth/sessions.ts";
import { type Language, pickLanguage } from "../i18n.ts";
import { hidden } from "../oauth_pages.ts";
import { csrfToken, validCsrf } from "../session.ts";
import { accountPage, type FieldProblems, field, formProblem, formToken, noticePage, problemsOf } from "./frame.ts";

export const passwordResetPages = router();

const text = (v: unknown) => (typeof v === "string" ? v : "");

async function askForm(c: Ctx, lang: Language, email = "", error?: string) {
  const t = lang.t.account.reset;
  return accountPage(
    c,
    lang,
    t.title,
    html`<p>${t.lead}</p>
${formProblem(error)}
<form method="post" action="/auth/password/new">
  ${formToken(lang, await csrfToken(c))}
  ${field({ name: "email", label: t.email, type: "email", value: email, autocomplete: "email" })}
  <div class="actions"><button class="primary" type="submit">${t.submit}</button></div>
</form>`,
  );
}

async function newPasswordForm(c: Ctx, lang: Language, token: string, problems?: FieldProblems | null, error?: string) {
  const t = lang.t.account.reset;
  return accountPage(
    c,
    lang,
    t.newTitle,
    html`${formProblem(error)}
<form method="post" action="/auth/password">
  ${formToken(lang, await csrfToken(c))}
  ${hidden({ reset_password_token: token })}
  ${field({ name: "password", label: t.password, type: "password", problems, autocomplete: "new-password", hint: lang.t.account.signUp.passwordHint })}
  ${field({ name: "password_confirmation", label: t.confirm, type: "password", problems, autocomplete: "new-password" })}
  <div class="actions"><button class="primary" type="submit">${t.submitNew}</button></div>
</form>`,
  );
}

const language = (c: Ctx, lang: unknown) => pickLanguage(lang, c.req.header("accept-language"));

passwordResetPages.get("/auth/password/new", async (c) => c.html(await askForm(c, language(c, c.req.query("lang")))));

passwordResetPages.post("/auth/password/new", async (c) => {
  const p = await params(c);
  const lang = language(c, p.lang);
  const t = lang.t.account.reset;
  const email = text(p.email);
  if (!(await validCsrf(c, p.authenticity_token)))
    return c.html(await askForm(c, lang, email, lang.t.account.expired), 422);
  try {
    await requestPasswordReset(c.get("rt"), { email, ip: clientIp(c), locale: lang.locale });
  } catch (error) {
    if (!(error instanceof TooManyAttempts)) throw error;
    for (const [name, value] of Object.entries(error.headers())) c.header(name, value);
    return c.html(await askForm(c, lang, email, lang.t.account.throttled), 429);
  }
  return c.html(noticePage(c, lang, t.sentTitle, t.sent));
});

passwordResetPages.get("/auth/password/edit", async (c) => {
  const lang = language(c, c.req.query("lang"));
  const t = lang.t.account.reset;
  const token = c.req.query("reset_password_token") ?? "";
  if (!(await resetLinkUser(c.get("rt"), token)))
    return c.html(noticePage(c, lang, t.invalidTitle, t.invalid, true), 404);
  return c.html(await newPasswordForm(c, lang, token));
});

passwordResetPages.post("/auth/password", async (c) => {
  const p = await params(c);
  const lang = language(c, p.lang);
  const t = lang.t.account.reset;
  const token = text(p.reset_password_token);
  if (!(await validCsrf(c, p.authenticity_token))) {
    return c.html(await newPasswordForm(c, lang, token, null, lang.t.account.expired), 422);
  }
  if (text(p.password) !== text(p.password_confirmation)) {
    const problems = { password_confirmation: [lang.t.account.fieldErrors.ERR_CONFIRMATION] };
    return c.html(await newPasswordForm(c, lang, token, problems), 422);
  }
  try {
    if (!(await resetPassword(c.get("rt"), token, text(p.password)))) {
      return c.html(noticePage(c, lang, t.invalidTitle, t.invalid, true), 404);
    }
  } catch (error) {
    const problems = problemsOf(lang, error);
    if (!problems) throw error;
    return c.html(await newPasswordForm(c, lang, token, problems), 422);
  }
  return c.html(noticePage(c, lang, t.doneTitle, t.done));
});
