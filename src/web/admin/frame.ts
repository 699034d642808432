// The frame of every web admin page: the sections the visitor's role may open, a sign-out button,
// the "saved" notice after a form, and small helpers for the forms themselves.
import { html } from "hono/html";
import { can, type Permission, type UserRole } from "../../domain/roles.ts";
import type { Ctx } from "../../http/hono.ts";
import type { Language } from "../i18n.ts";
import { type Html, page } from "../layout.ts";
import type { AdminMessages } from "../locales/admin/en.ts";

/** The sections of the web admin, in the order of the menu, with the permission each needs. */
export const SECTIONS: { key: keyof AdminMessages["nav"]; path: string; permission: Permission }[] = [
  { key: "dashboard", path: "/admin/dashboard", permission: "viewDashboard" },
  { key: "reports", path: "/admin/reports", permission: "manageReports" },
  { key: "accounts", path: "/admin/accounts", permission: "manageUsers" },
  { key: "invites", path: "/admin/invites", permission: "manageInvites" },
  { key: "domains", path: "/admin/domain_blocks", permission: "manageFederation" },
  { key: "relays", path: "/admin/relays", permission: "manageFederation" },
  { key: "instances", path: "/admin/instances", permission: "manageFederation" },
  { key: "blocks", path: "/admin/ip_blocks", permission: "manageBlocks" },
  { key: "settings", path: "/admin/settings", permission: "manageSettings" },
  { key: "announcements", path: "/admin/announcements", permission: "manageAnnouncements" },
  { key: "roles", path: "/admin/roles", permission: "manageRoles" },
  { key: "auditLog", path: "/admin/audit_log", permission: "viewAuditLog" },
  { key: "trends", path: "/admin/trends/tags", permission: "manageTaxonomies" },
  { key: "tags", path: "/admin/tags", permission: "manageTaxonomies" },
  { key: "customEmojis", path: "/admin/custom_emojis", permission: "manageCustomEmojis" },
];

interface Viewer {
  lang: Language;
  csrf: string;
  user: { role: UserRole };
}

/** The hidden CSRF field (and the page's language) every form carries. */
export const formToken = (v: Viewer) =>
  html`<input type="hidden" name="authenticity_token" value="${v.csrf}"><input type="hidden" name="lang" value="${v.lang.locale}">`;

/** A one-button form posting to `action`. */
export const button = (v: Viewer, action: string, label: string) =>
  html`<form class="inline" method="post" action="${action}">${formToken(v)}<button type="submit">${label}</button></form>`;

function nav(v: Viewer, current: string | null) {
  const t = v.lang.t.admin.nav;
  const links = SECTIONS.filter((s) => can(v.user.role, s.permission)).map(
    (s) => html`<a href="${s.path}"${s.key === current ? html` aria-current="page"` : ""}>${t[s.key]}</a>`,
  );
  return html`<nav class="admin" aria-label="${t.label}">${links}
<form class="inline" method="post" action="/auth/sign_out">${formToken(v)}<button type="submit">${v.lang.t.signOut.button}</button></form></nav>`;
}

/** A page of the web admin; `section` marks its entry in the menu. */
export function adminPage(c: Ctx, v: Viewer, o: { title: string; section: string | null; body: Html }): Html {
  const notice = c.req.query("saved") ? html`<p class="notice" role="status">${v.lang.t.admin.saved}</p>` : "";
  return page(o.title, html`${nav(v, o.section)}<h1>${o.title}</h1>${notice}${o.body}`, c.get("rt").config.site.title, {
    locale: v.lang.locale,
    wide: true,
  });
}

/** A page that only says something (refusals, failures), with a way back. */
export function adminMessage(c: Ctx, o: Viewer & { title: string; message: string; messageLocale?: string }): Html {
  const lang = o.messageLocale && o.messageLocale !== o.lang.locale ? html` lang="${o.messageLocale}"` : "";
  return adminPage(c, o, {
    title: o.title,
    section: null,
    body: html`<p class="error" role="alert"${lang}>${o.message}</p>
<p><a href="/admin">${o.lang.t.admin.back}</a></p>`,
  });
}
