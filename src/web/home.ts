// The home page, `/`, for browsers: what the server is (name, description, rules, contact), where to
// go from here (sign in, sign up, about, the latest public posts), and for a person signed in on
// the web pages, what to do next: Rookery has no web app of its own, so members read and post
// with Mastodon apps. API clients asking for JSON get the JSON 404 they always got.
import { html } from "hono/html";
import { anonymousReadsTimelines } from "../domain/anonymous_access.ts";
import { can } from "../domain/roles.ts";
import { inactiveReason } from "../domain/user_state.ts";
import { type Ctx, router } from "../http/hono.ts";
import { renderAccountView } from "../serializers/account.ts";
import { loadAccountView } from "../services/accounts/views.ts";
import type { SessionUser } from "../services/auth/sessions.ts";
import { serverFacts } from "./about.ts";
import { SECTIONS } from "./admin/frame.ts";
import { type Language, pickLanguage } from "./i18n.ts";
import { type Html, page } from "./layout.ts";
import { signOutForm } from "./oauth_pages.ts";
import { csrfToken, webUser } from "./session.ts";

export const homePage = router();

/** A browser asks for HTML; apps and scripts ask for JSON or anything (`*\/*`). */
const wantsHtml = (c: Ctx) => /\btext\/html\b/.test(c.req.header("accept") ?? "");

async function signedIn(c: Ctx, lang: Language, user: SessionUser): Promise<Html> {
  const rt = c.get("rt");
  const t = lang.t.home;
  const view = await loadAccountView(rt, user.accountId);
  const account = view ? renderAccountView(rt, view) : null;
  const reason = inactiveReason(user);
  const staff = !reason && SECTIONS.some((s) => can(user.role, s.permission));
  return html`<section class="signed-in">
<p>${t.signedInAs(html`<strong>${account ? `@${account.acct}` : user.email}</strong>`)}</p>
${reason ? html`<p class="notice" role="status">${lang.t.blocked[reason]}</p>` : ""}
<h2>${t.nextTitle}</h2>
<p>${t.useApp(html`<code>${rt.config.webDomain}</code>`)}</p>
<p>${t.apps}</p>
<p>${t.search}</p>
<p class="actions">
${account ? html`<a href="/@${account.username}">${t.profile}</a>` : ""}
${staff ? html`<a href="/admin">${t.admin}</a>` : ""}
</p>
${signOutForm(lang, await csrfToken(c))}
</section>`;
}

homePage.get("/", async (c) => {
  if (!wantsHtml(c)) {
    c.header("Vary", "Accept");
    return c.json({ error: "Record not found" }, 404);
  }
  const rt = c.get("rt");
  const lang = pickLanguage(c.req.query("lang"), c.req.header("accept-language"));
  const t = lang.t.home;
  const user = await webUser(c);
  const links = [
    user ? "" : html`<a href="/auth/sign_in">${t.signIn}</a>`,
    !user && rt.config.registrations.mode !== "none" ? html`<a href="/auth/sign_up">${t.signUp}</a>` : "",
    html`<a href="/about">${t.about}</a>`,
    anonymousReadsTimelines(rt.config) ? html`<a href="/public/local">${lang.t.publicPages.latest}</a>` : "",
  ];
  const body = html`<h1>${rt.config.site.title}</h1>
${await serverFacts(rt, lang)}
<nav class="actions" aria-label="${t.title}">${links}</nav>
${user ? await signedIn(c, lang, user) : ""}`;
  // The answer depends on the Accept header, and on the session when there is one.
  c.header("Vary", "Accept, Cookie");
  if (user) c.header("Cache-Control", "private, no-store");
  return c.html(page(t.title, body, rt.config.site.title, { locale: lang.locale }));
});
