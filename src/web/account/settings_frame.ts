// Who may open a settings page, and the frame around each: a visitor who is not signed in goes to
// the sign-in page (and back); a disabled or suspended account gets a refusal; every POST must carry
// the CSRF token of the session. A service's refusal (a wrong password, a bad address) shows on the
// page it came from. These pages show a person's own data, so none is cached or framed.
import type { Handler } from "hono";
import { html } from "hono/html";
import { ApiError } from "../../domain/errors.ts";
import { can } from "../../domain/roles.ts";
import { inactiveReason } from "../../domain/user_state.ts";
import { type AppEnv, type Ctx, params } from "../../http/hono.ts";
import type { Params } from "../../http/params.ts";
import type { SessionUser } from "../../services/auth/sessions.ts";
import { type Language, pickLanguage } from "../i18n.ts";
import { type Html, page } from "../layout.ts";
import { csrfToken, validCsrf, webUser } from "../session.ts";
import { formProblem, formToken } from "./frame.ts";

export interface MemberVisit {
  user: SessionUser;
  lang: Language;
  csrf: string;
  params: Params;
}

type MemberHandler = (c: Ctx, visit: MemberVisit) => Promise<Response>;

const SECTIONS = [
  { key: "password", path: "/settings/password" },
  { key: "email", path: "/settings/email" },
  { key: "sessions", path: "/settings/sessions" },
  { key: "apps", path: "/settings/applications" },
  { key: "twoFactor", path: "/settings/two_factor" },
  { key: "delete", path: "/settings/delete" },
  { key: "invites", path: "/invites" },
  { key: "export", path: "/settings/export" },
  { key: "import", path: "/settings/import" },
  { key: "aliases", path: "/settings/aliases" },
  { key: "migration", path: "/settings/migration" },
] as const;

export type Section = (typeof SECTIONS)[number]["key"];

/** How a page differs from the others: its own title (a page below a section), room for tables, more head. */
interface PageOptions {
  title?: string;
  wide?: boolean;
  head?: Html;
}

/** A settings page: the menu, the title, the "saved" notice after a form, and the body. */
export function settingsPage(
  c: Ctx,
  v: MemberVisit,
  section: Section,
  body: Html,
  error?: string,
  o: PageOptions = {},
): Html {
  const t = v.lang.t.account.settings;
  // Invites only for those whose role may make them.
  const sections = SECTIONS.filter((s) => s.key !== "invites" || can(v.user.role, "inviteUsers"));
  const links = sections.map(
    (s) => html`<a href="${s.path}"${s.key === section ? html` aria-current="page"` : ""}>${t.nav[s.key]}</a>`,
  );
  const saved = c.req.query("saved") ? html`<p class="notice" role="status">${t.saved}</p>` : "";
  const title = o.title ?? t.nav[section];
  return page(
    title,
    html`<nav class="admin" aria-label="${t.nav.label}">${links}
<form class="inline" method="post" action="/auth/sign_out">${formToken(v.lang, v.csrf)}<button type="submit">${v.lang.t.signOut.button}</button></form></nav>
<h1>${title}</h1>${saved}${formProblem(error)}${body}`,
    c.get("rt").config.site.title,
    { locale: v.lang.locale, wide: o.wide, head: o.head },
  );
}

/** The section page a path belongs to, where a signed-out form is sent back to after signing in. */
const sectionOf = (path: string) =>
  SECTIONS.find((s) => path === s.path || path.startsWith(`${s.path}/`))?.path ?? "/settings";

interface RouteOptions {
  /** Shows the page again with a service's problem. */
  render?: (c: Ctx, v: MemberVisit, error: ApiError) => Promise<Response>;
  /** Also refuses accounts not yet confirmed or approved; other settings pages let them in, to correct their email address. */
  functional?: boolean;
}

/** A settings page (or form) for the signed-in member. */
export function memberRoute(handler: MemberHandler, o: RouteOptions = {}): Handler<AppEnv> {
  return async (c) => {
    c.header("Cache-Control", "no-store");
    c.header("X-Frame-Options", "DENY");
    c.header("Content-Security-Policy", "frame-ancestors 'none'");
    const all = await params(c);
    const lang = pickLanguage(all.lang, c.req.header("accept-language"));
    const t = lang.t.account;
    const user = await webUser(c);
    if (!user) {
      const back = c.req.method === "GET" ? new URL(c.req.url) : null;
      const returnTo = back ? `${back.pathname}${back.search}` : sectionOf(c.req.path);
      return c.redirect(`/auth/sign_in?${new URLSearchParams({ return_to: returnTo, lang: lang.locale })}`, 303);
    }
    const csrf = await csrfToken(c);
    const visit = { user, lang, csrf, params: all };
    const inactive = inactiveReason(user);
    if (inactive === "disabled" || (inactive && o.functional)) {
      return c.html(
        page(
          t.failed,
          html`<h1>${t.failed}</h1>${formProblem(lang.t.blocked[inactive])}`,
          c.get("rt").config.site.title,
          { locale: lang.locale },
        ),
        403,
      );
    }
    if (c.req.method === "POST" && !(await validCsrf(c, all.authenticity_token))) {
      const title = t.failed;
      return c.html(
        page(title, html`<h1>${title}</h1>${formProblem(t.expired)}`, c.get("rt").config.site.title, {
          locale: lang.locale,
        }),
        422,
      );
    }
    try {
      return await handler(c, visit);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
      if (o.render) return o.render(c, visit, error);
      // The services' own messages are in English, as in the API.
      const body = html`<p class="error" role="alert" lang="en">${error.message}</p>`;
      return c.html(
        page(t.failed, html`<h1>${t.failed}</h1>${body}`, c.get("rt").config.site.title, { locale: lang.locale }),
        error.status,
      );
    }
  };
}

/** After a form: back to a page, which says the change was saved. */
export const saved = (c: Ctx, path: string) => c.redirect(`${path}?saved=1`, 303);
