// The pages of the authorization flow: sign in, consent, the out-of-band code, the form_post
// hand-over, and messages. Every value is escaped by the `html` template.
import { html } from "hono/html";
import { ENGLISH, type Language } from "./i18n.ts";
import { type Html, page } from "./layout.ts";
import type { Messages } from "./locales/en.ts";

export interface FormFields {
  [name: string]: string;
}

export const hidden = (fields: FormFields) =>
  Object.entries(fields).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`);

/** A scope in plain words: its own sentence, or the pattern of its family (`read:lists` → "See your lists"). */
function describeScope(t: Messages, scope: string): string {
  const own = (t.scopes as Record<string, string>)[scope];
  if (own) return own;
  const colon = scope.lastIndexOf(":");
  const family = scope.slice(0, colon) as keyof Messages["granular"];
  const thing = (t.things as Record<string, string>)[scope.slice(colon + 1)];
  return t.granular[family] && thing ? t.granular[family](thing) : scope;
}

/** The sign-out button, in a form of its own. */
export function signOutForm(lang: Language, csrf: string, lead: Html | string = "") {
  return html`<form method="post" action="/auth/sign_out">
  ${hidden({ authenticity_token: csrf, lang: lang.locale })}
  <p class="muted">${lead} <button type="submit">${lang.t.signOut.button}</button></p>
</form>`;
}

export function signInPage(o: {
  site: string;
  lang: Language;
  csrf: string;
  returnTo: string;
  email?: string;
  error?: string;
  /** Whether to offer to create an account. */
  signUp: boolean;
}) {
  const t = o.lang.t.signIn;
  const links = o.lang.t.account.links;
  const lang = new URLSearchParams({ lang: o.lang.locale });
  return page(
    t.title,
    html`<h1>${t.title}</h1>
${o.error ? html`<p class="error" role="alert">${o.error}</p>` : ""}
<form method="post" action="/auth/sign_in">
  ${hidden({ authenticity_token: o.csrf, return_to: o.returnTo, lang: o.lang.locale })}
  <label for="email">${t.email}</label>
  <input id="email" name="email" type="email" autocomplete="username" required value="${o.email ?? ""}">
  <label for="password">${t.password}</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>
  <div class="actions"><button class="primary" type="submit">${t.submit}</button></div>
</form>
<p><a href="/auth/password/new?${lang}">${links.forgot}</a></p>
${o.signUp ? html`<p><a href="/auth/sign_up?${lang}">${links.signUp}</a></p>` : ""}`,
    o.site,
    { locale: o.lang.locale },
  );
}

export function consentPage(o: {
  site: string;
  lang: Language;
  csrf: string;
  appName: string;
  appWebsite: string | null;
  username: string;
  scopes: string[];
  fields: FormFields;
}) {
  const t = o.lang.t;
  const app = o.appWebsite ? html`<a href="${o.appWebsite}" rel="noopener noreferrer">${o.appName}</a>` : o.appName;
  return page(
    t.consent.title,
    html`<h1>${t.consent.heading(o.appName)}</h1>
<p>${t.consent.lead(html`${app}`, html`<strong>@${o.username}</strong>`)}</p>
<ul class="scopes">${o.scopes.map((s) => html`<li>${describeScope(t, s)} <span class="muted">(<code>${s}</code>)</span></li>`)}</ul>
<form method="post" action="/oauth/authorize">
  ${hidden({ ...o.fields, authenticity_token: o.csrf })}
  <div class="actions">
    <button class="primary" type="submit" name="decision" value="approve">${t.consent.authorize}</button>
    <button type="submit" name="decision" value="deny">${t.consent.deny}</button>
  </div>
</form>
${signOutForm(o.lang, o.csrf, t.consent.notYou)}`,
    o.site,
    { locale: o.lang.locale },
  );
}

export function codePage(o: { site: string; lang: Language; appName: string; code: string }) {
  const t = o.lang.t.code;
  return page(
    t.title,
    html`<h1>${t.title}</h1>
<p>${t.lead(o.appName)}</p>
<code class="secret" id="code">${o.code}</code>`,
    o.site,
    { locale: o.lang.locale },
  );
}

/** The `form_post` response mode: the browser posts the answer to the app (at once, with scripts on). */
export function formPostPage(o: { site: string; lang: Language; action: string; fields: FormFields }) {
  const t = o.lang.t.formPost;
  return page(
    t.title,
    html`<form method="post" action="${o.action}">
  ${hidden(o.fields)}
  <div class="actions"><button class="primary" type="submit">${t.submit}</button></div>
</form>`,
    o.site,
    { locale: o.lang.locale, onload: "document.forms[0].submit()" },
  );
}

export function messagePage(o: {
  site: string;
  title: string;
  message: string;
  lang?: Language;
  /** The message's own language, when it differs from the page's (the server's English errors). */
  messageLocale?: string;
  /** Offers to sign out, with this form token. */
  csrf?: string;
}) {
  const lang = o.lang ?? ENGLISH;
  const messageLang = o.messageLocale && o.messageLocale !== lang.locale ? html` lang="${o.messageLocale}"` : "";
  return page(
    o.title,
    html`<h1>${o.title}</h1>
<p class="notice" role="alert"${messageLang}>${o.message}</p>
${o.csrf ? signOutForm(lang, o.csrf) : ""}`,
    o.site,
    { locale: lang.locale },
  );
}
