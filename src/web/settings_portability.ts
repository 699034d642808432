// What the export and import pages under /settings share: only the signed-in owner of an account
// opens them (a visitor is sent to sign in and back), every POST carries the session's CSRF token,
// and each page has the same frame, with links between the two.
import type { Handler } from "hono";
import { html } from "hono/html";
import { ApiError } from "../domain/errors.ts";
import { inactiveReason } from "../domain/user_state.ts";
import { type AppEnv, type Ctx, params } from "../http/hono.ts";
import type { Params } from "../http/params.ts";
import type { SessionUser } from "../services/auth/sessions.ts";
import { type Language, pickLanguage } from "./i18n.ts";
import { type Html, page } from "./layout.ts";
import { csrfToken, validCsrf, webUser } from "./session.ts";

export interface MemberVisit {
  user: SessionUser;
  lang: Language;
  csrf: string;
  params: Params;
}

type MemberHandler = (c: Ctx, visit: MemberVisit) => Promise<Response>;

/** The hidden CSRF field (and the page's language) every form carries. */
export const formToken = (v: MemberVisit) =>
  html`<input type="hidden" name="authenticity_token" value="${v.csrf}"><input type="hidden" name="lang" value="${v.lang.locale}">`;

const LINKS = [
  { key: "export", path: "/settings/export" },
  { key: "import", path: "/settings/import" },
] as const;

/** A page of the signed-in person's data settings. */
export function memberPage(
  c: Ctx,
  v: MemberVisit,
  o: { title: string; current: string | null; body: Html; head?: Html },
): Html {
  const t = v.lang.t.portability.nav;
  const links = LINKS.map(
    (l) => html`<a href="${l.path}"${l.key === o.current ? html` aria-current="page"` : ""}>${t[l.key]}</a>`,
  );
  return page(
    o.title,
    html`<nav class="admin" aria-label="${t.label}">${links}</nav><h1>${o.title}</h1>${o.body}`,
    c.get("rt").config.site.title,
    { locale: v.lang.locale, wide: true, head: o.head },
  );
}

function message(c: Ctx, v: MemberVisit, title: string, text: string, locale?: string): Html {
  const lang = locale && locale !== v.lang.locale ? html` lang="${locale}"` : "";
  return memberPage(c, v, {
    title,
    current: null,
    body: html`<p class="error" role="alert"${lang}>${text}</p><p><a href="${c.req.path}">${v.lang.t.portability.back}</a></p>`,
  });
}

/** A page (or form) only the signed-in owner of an account may use. */
export function memberRoute(handler: MemberHandler): Handler<AppEnv> {
  return async (c) => {
    // Pages with a person's own data: never cached, never framed.
    c.header("Cache-Control", "no-store");
    c.header("X-Frame-Options", "DENY");
    c.header("Content-Security-Policy", "frame-ancestors 'none'");
    const all = await params(c);
    const lang = pickLanguage(all.lang, c.req.header("accept-language"));
    const user = await webUser(c);
    if (!user) {
      // A form's page, for a POST.
      const form = c.req.path.startsWith("/settings/export") ? "/settings/export" : "/settings/import";
      const back = c.req.method === "GET" ? c.req.path : form;
      return c.redirect(`/auth/sign_in?${new URLSearchParams({ return_to: back })}`, 303);
    }
    const v: MemberVisit = { user, lang, csrf: await csrfToken(c), params: all };
    const t = lang.t.portability;
    if (inactiveReason(user)) return c.html(message(c, v, t.denied.title, t.denied.message), 403);
    if (c.req.method === "POST" && !(await validCsrf(c, all.authenticity_token))) {
      return c.html(message(c, v, t.failed, t.expired), 422);
    }
    try {
      return await handler(c, v);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      // The services' own messages are in English, as in the API.
      return c.html(message(c, v, t.failed, error.message, "en"), error.status);
    }
  };
}
