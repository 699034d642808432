// Who may open a page of the web admin, and how its forms are checked. Every page names the
// permission of Mastodon's role bits it needs: a visitor who is not signed in is sent to the sign-in
// page (and back), staff without the permission get a 403 page, and every POST must carry the CSRF
// token bound to the session, whatever the cookies' SameSite says.
import type { Handler } from "hono";
import { ApiError } from "../../domain/errors.ts";
import { can, type Permission } from "../../domain/roles.ts";
import { inactiveReason } from "../../domain/user_state.ts";
import { type AppEnv, type Ctx, params } from "../../http/hono.ts";
import type { Params } from "../../http/params.ts";
import type { SessionUser } from "../../services/auth/sessions.ts";
import type { Staff } from "../../services/moderation/staff.ts";
import { type Language, pickLanguage } from "../i18n.ts";
import { csrfToken, validCsrf, webUser } from "../session.ts";
import { adminMessage } from "./frame.ts";

export interface StaffVisit {
  user: SessionUser;
  /** The signed-in member of staff, as the moderation services take them. */
  actor: Staff;
  lang: Language;
  /** The token to put in every form of the page. */
  csrf: string;
  /** The request's query and body parameters. */
  params: Params;
}

type StaffHandler = (c: Ctx, staff: StaffVisit) => Promise<Response>;

/** Where to come back to after signing in: the page itself (a form's page, for a POST). */
function returnTo(c: Ctx): string {
  const url = new URL(c.req.url);
  return c.req.method === "GET" ? `${url.pathname}${url.search}` : "/admin";
}

/** A page (or form) of the web admin that staff holding `permission` may use. */
export function adminRoute(permission: Permission, handler: StaffHandler): Handler<AppEnv> {
  return async (c) => {
    const all = await params(c);
    const lang = pickLanguage(all.lang, c.req.header("accept-language"));
    const t = lang.t.admin;
    const user = await webUser(c);
    if (!user) return c.redirect(`/auth/sign_in?${new URLSearchParams({ return_to: returnTo(c) })}`, 303);
    const csrf = await csrfToken(c);
    if (inactiveReason(user) || !can(user.role, permission)) {
      return c.html(adminMessage(c, { lang, csrf, user, title: t.denied.title, message: t.denied.message }), 403);
    }
    if (c.req.method === "POST" && !(await validCsrf(c, all.authenticity_token))) {
      return c.html(adminMessage(c, { lang, csrf, user, title: t.failed, message: t.expired }), 422);
    }
    try {
      return await handler(c, { user, actor: { accountId: user.accountId, role: user.role }, lang, csrf, params: all });
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      // The services' own messages are in English, as in the API.
      return c.html(
        adminMessage(c, { lang, csrf, user, title: t.failed, message: error.message, messageLocale: "en" }),
        error.status,
      );
    }
  };
}

/** After a form: back to a page, which says the change was saved. */
export function saved(c: Ctx, path: string): Response {
  return c.redirect(`${path}${path.includes("?") ? "&" : "?"}saved=1`, 303);
}
