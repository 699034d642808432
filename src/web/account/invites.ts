// /invites: the invite links of a member whose role may invite (`invite_users`), each with its uses
// and expiry; /invite/:code (the link itself) opens the sign-up page with the invite.
import { html } from "hono/html";
import { forbidden } from "../../domain/errors.ts";
import { can } from "../../domain/roles.ts";
import { router } from "../../http/hono.ts";
import {
  createInvite,
  expireInvite,
  INVITE_EXPIRIES,
  INVITE_USES,
  inviteUsable,
  listInvites,
} from "../../services/accounts/invites.ts";
import { formToken } from "./frame.ts";
import { type MemberVisit, memberRoute, saved, settingsPage } from "./settings_frame.ts";

export const invitePages = router();

const when = (d: Date) => `${d.toISOString().slice(0, 16).replace("T", " ")} UTC`;
/** A choice of the form: a number from the list, or "" for none. */
const choice = (value: unknown) => (typeof value === "string" && /^\d{1,7}$/.test(value) ? Number(value) : null);

function requireInviter(v: MemberVisit) {
  if (!can(v.user.role, "inviteUsers")) throw forbidden(v.lang.t.account.invites.denied);
}

invitePages.get(
  "/invites",
  memberRoute(async (c, v) => {
    requireInviter(v);
    const t = v.lang.t.account.invites;
    const invites = await listInvites(c.get("rt"), v.user);
    const origin = c.get("rt").config.origin;
    const rows = invites.map((i) => {
      const usable = inviteUsable(i);
      return html`<tr>
  <td>${usable ? html`<code class="invite-link">${origin}/invite/${i.code}</code>` : html`<del>${i.code}</del>`}</td>
  <td>${i.uses}${i.max_uses === null ? "" : ` / ${i.max_uses}`}</td>
  <td>${usable ? (i.expires_at ? when(i.expires_at) : t.never) : t.expired}</td>
  <td>${usable ? html`<form class="inline" method="post" action="/invites/${i.id}/expire">${formToken(v.lang, v.csrf)}<button type="submit">${t.expire}</button></form>` : ""}</td>
</tr>`;
    });
    return c.html(
      settingsPage(
        c,
        v,
        "invites",
        html`<p>${t.lead}</p>
<form method="post" action="/invites">
  ${formToken(v.lang, v.csrf)}
  <label for="max_uses">${t.maxUses}</label>
  <select id="max_uses" name="max_uses">${INVITE_USES.map((n) => html`<option value="${n ?? ""}">${n ?? t.noLimit}</option>`)}</select>
  <label for="expires_in">${t.expiresIn}</label>
  <select id="expires_in" name="expires_in">${INVITE_EXPIRIES.map((s) => html`<option value="${s ?? ""}"${s === 604_800 ? html` selected` : ""}>${s === null ? t.never : t.expiries[s]}</option>`)}</select>
  <div class="actions"><button class="primary" type="submit">${t.submit}</button></div>
</form>
${
  invites.length === 0
    ? html`<p class="muted">${t.none}</p>`
    : html`<table><thead><tr><th>${t.link}</th><th>${t.used}</th><th>${t.expires}</th><th></th></tr></thead><tbody>${rows}</tbody></table>`
}`,
      ),
    );
  }),
);

invitePages.post(
  "/invites",
  memberRoute(async (c, v) => {
    requireInviter(v);
    await createInvite(c.get("rt"), v.user, {
      maxUses: choice(v.params.max_uses),
      expiresIn: choice(v.params.expires_in),
    });
    return saved(c, "/invites");
  }),
);

invitePages.post(
  "/invites/:id/expire",
  memberRoute(async (c, v) => {
    requireInviter(v);
    const id = c.req.param("id") ?? "";
    if (!/^\d{1,19}$/.test(id)) throw forbidden();
    await expireInvite(c.get("rt"), v.user, id);
    return saved(c, "/invites");
  }),
);

invitePages.get("/invite/:code", (c) =>
  c.redirect(`/auth/sign_up?${new URLSearchParams({ invite_code: c.req.param("code") ?? "" })}`, 303),
);
