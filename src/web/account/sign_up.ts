// GET/POST /auth/sign_up: creating an account on the web, through the service behind
// POST /api/v1/accounts (the same rules and checks), then the confirmation mail. A hidden field,
// left empty by people and filled by form-filling bots, turns a sign-up away. An invite link
// (/invite/:code) brings its code along: with it, closed sign-ups are open and need no approval.
import { html } from "hono/html";
import { ApiError } from "../../domain/errors.ts";
import { type Ctx, clientIp, params, router } from "../../http/hono.ts";
import { usableInvite } from "../../services/accounts/invites.ts";
import { signUpOnWeb } from "../../services/accounts/registration.ts";
import { rules } from "../../services/instance/rules.ts";
import { type Language, pickLanguage } from "../i18n.ts";
import { hidden } from "../oauth_pages.ts";
import { csrfToken, validCsrf } from "../session.ts";
import { accountPage, type FieldProblems, field, formProblem, formToken, noticePage, problemsOf } from "./frame.ts";

export const signUpPages = router();

const text = (v: unknown) => (typeof v === "string" ? v : "");
// The trap's name: a field bots expect and fill.
const TRAP = "website";

interface Entered {
  username: string;
  email: string;
  reason: string;
  date_of_birth: string;
}

type Invite = Awaited<ReturnType<typeof usableInvite>>;

async function form(
  c: Ctx,
  lang: Language,
  invite: Invite,
  o: { entered?: Entered; problems?: FieldProblems | null; error?: string },
) {
  const rt = c.get("rt");
  const t = lang.t.account.signUp;
  const { minAge, reasonRequired } = rt.config.registrations;
  // Invited: no approval to wait for, and no reason to give.
  const mode = invite ? "open" : rt.config.registrations.mode;
  const list = await rules(rt);
  const e = o.entered;
  const agreementProblems = o.problems?.agreement ?? [];
  return accountPage(
    c,
    lang,
    t.title,
    html`${invite ? html`<p class="notice">${t.invited(invite.inviter)}</p>` : ""}
${mode === "approved" ? html`<p class="notice">${t.approval}</p>` : ""}
${rt.config.registrations.message ? html`<p>${rt.config.registrations.message}</p>` : ""}
${list.length > 0 ? html`<h2>${t.rules}</h2><ol>${list.map((r) => html`<li>${r.text}${r.hint ? html`<br><span class="muted">${r.hint}</span>` : ""}</li>`)}</ol>` : ""}
${formProblem(o.error)}
<form method="post" action="/auth/sign_up">
  ${formToken(lang, await csrfToken(c))}
  ${invite ? hidden({ invite_code: invite.code }) : ""}
  ${field({ name: "username", label: t.username, hint: t.usernameHint, value: e?.username, problems: o.problems, autocomplete: "username" })}
  ${field({ name: "email", label: t.email, type: "email", value: e?.email, problems: o.problems, autocomplete: "email" })}
  ${field({ name: "password", label: t.password, type: "password", hint: t.passwordHint, problems: o.problems, autocomplete: "new-password" })}
  ${field({ name: "password_confirmation", label: t.confirm, type: "password", problems: o.problems, autocomplete: "new-password" })}
  ${mode === "approved" ? field({ name: "reason", label: t.reason, value: e?.reason, problems: o.problems, required: reasonRequired }) : ""}
  ${minAge !== null ? field({ name: "date_of_birth", label: t.dateOfBirth, type: "date", hint: t.dateOfBirthHint(minAge), value: e?.date_of_birth, problems: o.problems }) : ""}
  <div style="position:absolute;left:-10000px" aria-hidden="true">
    <label for="${TRAP}">${t.trap}</label>
    <input id="${TRAP}" name="${TRAP}" type="text" tabindex="-1" autocomplete="off" value="">
  </div>
  <label><input type="checkbox" name="agreement" value="1" required${agreementProblems.length > 0 ? html` aria-invalid="true"` : ""}> ${t.agreement}</label>
  ${agreementProblems.length > 0 ? html`<p class="error">${agreementProblems.join(", ")}</p>` : ""}
  <div class="actions"><button class="primary" type="submit">${t.submit}</button></div>
</form>
<p class="muted"><a href="/auth/sign_in?lang=${lang.locale}">${lang.t.account.links.signIn}</a></p>`,
  );
}

/** The invite a request brings, and whether it brought one that can't be used. */
async function inviteOf(c: Ctx, code: unknown): Promise<{ invite: Invite; invalid: boolean }> {
  if (typeof code !== "string" || code === "") return { invite: null, invalid: false };
  const invite = await usableInvite(c.get("rt"), code);
  return { invite, invalid: invite === null };
}

signUpPages.get("/auth/sign_up", async (c) => {
  const lang = pickLanguage(c.req.query("lang"), c.req.header("accept-language"));
  const t = lang.t.account.signUp;
  const { invite, invalid } = await inviteOf(c, c.req.query("invite_code"));
  if (c.get("rt").config.registrations.mode === "none" && !invite) {
    return c.html(noticePage(c, lang, t.title, invalid ? t.invalidInvite : t.closed, true), 403);
  }
  return c.html(await form(c, lang, invite, { error: invalid ? t.invalidInvite : undefined }));
});

signUpPages.post("/auth/sign_up", async (c) => {
  const p = await params(c);
  const lang = pickLanguage(p.lang, c.req.header("accept-language"));
  const t = lang.t.account.signUp;
  const { invite, invalid } = await inviteOf(c, p.invite_code);
  if (c.get("rt").config.registrations.mode === "none" && !invite) {
    return c.html(noticePage(c, lang, t.title, invalid ? t.invalidInvite : t.closed, true), 403);
  }
  const entered: Entered = {
    username: text(p.username),
    email: text(p.email),
    reason: text(p.reason),
    date_of_birth: text(p.date_of_birth),
  };
  if (!(await validCsrf(c, p.authenticity_token))) {
    return c.html(await form(c, lang, invite, { entered, error: lang.t.account.expired }), 422);
  }
  if (text(p[TRAP]) !== "") return c.html(noticePage(c, lang, t.title, t.rejected, true), 422);
  if (text(p.password) !== text(p.password_confirmation)) {
    const problems = { password_confirmation: [lang.t.account.fieldErrors.ERR_CONFIRMATION] };
    return c.html(await form(c, lang, invite, { entered, problems }), 422);
  }
  try {
    const { approved } = await signUpOnWeb(
      c.get("rt"),
      {
        username: entered.username,
        email: entered.email,
        password: text(p.password),
        agreement: p.agreement,
        locale: lang.locale,
        reason: entered.reason,
        dateOfBirth: entered.date_of_birth || undefined,
        inviteCode: invite?.code,
      },
      clientIp(c),
    );
    const email = entered.email.trim().toLowerCase();
    return c.html(noticePage(c, lang, t.doneTitle, approved ? t.done(email) : t.doneApproval(email)));
  } catch (error) {
    const problems = problemsOf(lang, error);
    if (problems?.invite_code) return c.html(await form(c, lang, null, { entered, error: t.invalidInvite }), 422);
    if (problems) return c.html(await form(c, lang, invite, { entered, problems }), 422);
    if (!(error instanceof ApiError)) throw error;
    if (error.status === 429) {
      for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
      return c.html(await form(c, lang, invite, { entered, error: lang.t.account.throttled }), 429);
    }
    return c.html(noticePage(c, lang, t.title, t.refused, true), 403);
  }
});
