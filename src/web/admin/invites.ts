// Every member's invite links (Mastodon's admin invites): who made each, its uses and expiry, and
// a button to deactivate one, through the service behind the members' own invites page.
import { html } from "hono/html";
import { isId } from "../../domain/ids.ts";
import { can } from "../../domain/roles.ts";
import { router } from "../../http/hono.ts";
import { deactivateInvite, inviteUsable, listAllInvites } from "../../services/accounts/invites.ts";
import { minute, number } from "./format.ts";
import { adminPage, button } from "./frame.ts";
import { adminRoute, saved } from "./guard.ts";

export const invitePages = router();

const PATH = "/admin/invites";
const PAGE_SIZE = 40;

invitePages.get(
  PATH,
  adminRoute("manageInvites", async (c, staff) => {
    const t = staff.lang.t.admin.invites;
    const expired = staff.params.expired === "1";
    const maxId = typeof staff.params.max_id === "string" && isId(staff.params.max_id) ? staff.params.max_id : null;
    const page = await listAllInvites(
      c.get("rt"),
      staff.actor,
      { expired },
      { maxId, sinceId: null, minId: null, limit: PAGE_SIZE },
    );
    const origin = c.get("rt").config.origin;
    const users = can(staff.user.role, "manageUsers");
    const rows = page.items.map((i) => {
      const usable = inviteUsable(i);
      return html`<tr>
  <td>${usable ? html`<code>${origin}/invite/${i.code}</code>` : html`<del>${i.code}</del>`}</td>
  <td>${users ? html`<a href="/admin/accounts/${i.account_id}">@${i.username}</a>` : `@${i.username}`}</td>
  <td>${number(staff.lang, i.uses)}${i.max_uses === null ? "" : ` / ${number(staff.lang, i.max_uses)}`}</td>
  <td>${i.expires_at ? minute(i.expires_at) : t.never}</td>
  <td>${usable ? button(staff, `${PATH}/${i.id}/expire`, t.deactivate) : ""}</td>
</tr>`;
    });
    const older = page.next
      ? html`<p><a href="${PATH}?${new URLSearchParams({ ...(expired ? { expired: "1" } : {}), max_id: page.next })}">${t.older}</a></p>`
      : "";
    return c.html(
      adminPage(c, staff, {
        title: t.title,
        section: "invites",
        body: html`<p><a href="${PATH}"${expired ? "" : html` aria-current="page"`}>${t.available}</a> ·
<a href="${PATH}?expired=1"${expired ? html` aria-current="page"` : ""}>${t.expired}</a></p>
${
  rows.length === 0
    ? html`<p>${t.none}</p>`
    : html`<table><thead><tr><th>${t.link}</th><th>${t.by}</th><th>${t.uses}</th><th>${t.expires}</th><th></th></tr></thead>
<tbody>${rows}</tbody></table>`
}${older}`,
      }),
    );
  }),
);

invitePages.post(
  `${PATH}/:id/expire`,
  adminRoute("manageInvites", async (c, staff) => {
    await deactivateInvite(c.get("rt"), staff.actor, c.req.param("id") ?? "");
    return saved(c, PATH);
  }),
);
