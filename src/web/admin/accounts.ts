// Accounts: find them (by name, email, address, state), read one as moderators see it, and act on
// it (warn, force media sensitive, disable, limit, suspend, and undo each; approve or reject a
// pending sign-up). The rules, the effects and the audit log are the moderation services'.
import { html } from "hono/html";
import { isId } from "../../domain/ids.ts";
import { can, outranks } from "../../domain/roles.ts";
import { router } from "../../http/hono.ts";
import { renderAdminAccount } from "../../serializers/admin_account.ts";
import {
  ACTION_TYPES,
  approveAccount,
  deleteAccountData,
  enableAccount,
  rejectAccount,
  takeAction,
  unsensitiveAccount,
  unsilenceAccount,
  unsuspendAccount,
} from "../../services/moderation/account_actions.ts";
import { accountForStaff, findAccounts, STATUSES } from "../../services/moderation/account_list.ts";
import { loadAdminAccountViews } from "../../services/moderation/report_views.ts";
import { assignableRoles, changeUserRole } from "../../services/roles/manage.ts";
import { safeUrl } from "../public_pages/render.ts";
import { adminPage, button, formToken } from "./frame.ts";
import { adminRoute, type StaffVisit, saved } from "./guard.ts";

export const accountPages = router();

const PATH = "/admin/accounts";
const PAGE_SIZE = 40;
const text = (value: unknown) => (typeof value === "string" ? value.trim() : "");

type AdminAccount = ReturnType<typeof renderAdminAccount>;

const acct = (a: { username: string; domain: string | null }) =>
  a.domain ? `@${a.username}@${a.domain}` : `@${a.username}`;

async function render(rt: Parameters<typeof loadAdminAccountViews>[0], ids: string[]): Promise<AdminAccount[]> {
  const views = await loadAdminAccountViews(rt, ids);
  return ids.flatMap((id) => {
    const view = views.get(id);
    return view ? [renderAdminAccount(rt, view)] : [];
  });
}

function states(staff: StaffVisit, a: AdminAccount): string {
  const t = staff.lang.t.admin.accounts.states;
  const out: string[] = [];
  if (a.suspended) out.push(t.suspended);
  if (a.silenced) out.push(t.silenced);
  if (a.disabled) out.push(t.disabled);
  if (a.sensitized) out.push(t.sensitized);
  if (a.domain === null && !a.approved) out.push(t.pending);
  return out.length > 0 ? out.join(", ") : t.active;
}

accountPages.get(
  PATH,
  adminRoute("manageUsers", async (c, staff) => {
    const t = staff.lang.t.admin.accounts;
    const p = staff.params;
    const filter = {
      username: text(p.username) || undefined,
      email: text(p.email) || undefined,
      ip: text(p.ip) || undefined,
      status: STATUSES.find((s) => s === p.status),
      origin: p.origin === "local" || p.origin === "remote" ? p.origin : undefined,
    };
    const maxId = typeof p.max_id === "string" && isId(p.max_id) ? p.max_id : null;
    const page = await findAccounts(c.get("rt"), staff.actor, filter, {
      maxId,
      sinceId: null,
      minId: null,
      limit: PAGE_SIZE,
    });
    const accounts = await render(c.get("rt"), page.items);
    const query = Object.fromEntries(Object.entries(filter).filter((e): e is [string, string] => Boolean(e[1])));
    const older = page.next
      ? html`<p><a href="${PATH}?${new URLSearchParams({ ...query, max_id: page.next })}">${t.older}</a></p>`
      : "";
    const option = (value: string, label: string, current: string | undefined) =>
      html`<option value="${value}"${value === (current ?? "") ? " selected" : ""}>${label}</option>`;
    return c.html(
      adminPage(c, staff, {
        title: t.title,
        section: "accounts",
        body: html`<form method="get" action="${PATH}">
  <input type="hidden" name="lang" value="${staff.lang.locale}">
  <label for="username">${t.username}</label>
  <input id="username" name="username" type="text" value="${filter.username ?? ""}">
  <label for="email">${t.email}</label>
  <input id="email" name="email" type="text" value="${filter.email ?? ""}">
  <label for="ip">${t.ip}</label>
  <input id="ip" name="ip" type="text" value="${filter.ip ?? ""}">
  <label for="status">${t.state}</label>
  <select id="status" name="status">${option("", t.any, filter.status)}${STATUSES.map((s) => option(s, t.states[s], filter.status))}</select>
  <label for="origin">${t.origin}</label>
  <select id="origin" name="origin">${option("", t.any, filter.origin)}${option("local", t.local, filter.origin)}${option("remote", t.remote, filter.origin)}</select>
  <div class="actions"><button class="primary" type="submit">${t.search}</button></div>
</form>
${
  accounts.length === 0
    ? html`<p>${t.none}</p>`
    : html`<table><thead><tr><th>${t.username}</th><th>${t.email}</th><th>${t.state}</th><th>${t.joined}</th></tr></thead><tbody>
${accounts.map((a) => html`<tr><td><a href="${PATH}/${a.id}">${acct(a)}</a></td><td>${a.email}</td><td>${states(staff, a)}</td><td>${a.created_at.slice(0, 10)}</td></tr>`)}
</tbody></table>`
}${older}`,
      }),
    );
  }),
);

accountPages.get(
  `${PATH}/:id`,
  adminRoute("manageUsers", async (c, staff) => {
    const t = staff.lang.t.admin.accounts;
    const found = await accountForStaff(c.get("rt"), staff.actor, c.req.param("id") ?? "");
    const [a] = await render(c.get("rt"), [found.id]);
    // Mastodon's "Change role": for staff who may manage roles, on users whose role is below theirs.
    const roles =
      found.user_id !== null &&
      found.id !== staff.actor.accountId &&
      can(staff.user.role, "manageRoles") &&
      outranks(staff.user.role, found.role)
        ? await assignableRoles(c.get("rt"), staff.actor)
        : null;
    const path = `${PATH}/${a.id}`;
    const reportId =
      typeof staff.params.report_id === "string" && isId(staff.params.report_id) ? staff.params.report_id : "";
    const undo = [
      a.domain === null && !a.approved ? button(staff, `${path}/approve`, t.approve) : "",
      a.domain === null && !a.approved ? button(staff, `${path}/reject`, t.reject) : "",
      a.disabled ? button(staff, `${path}/enable`, t.enable) : "",
      a.silenced ? button(staff, `${path}/unsilence`, t.unsilence) : "",
      a.sensitized ? button(staff, `${path}/unsensitive`, t.unsensitive) : "",
      a.suspended ? button(staff, `${path}/unsuspend`, t.unsuspend) : "",
      a.suspended && can(staff.user.role, "deleteUserData") ? button(staff, `${path}/delete`, t.deleteData) : "",
    ];
    return c.html(
      adminPage(c, staff, {
        title: acct(a),
        section: "accounts",
        body: html`<table>
${a.account ? html`<tr><th>${t.publicProfile}</th><td><a href="${safeUrl(a.account.url)}">${a.account.url}</a></td></tr>` : ""}
<tr><th>${t.email}</th><td>${a.email}</td></tr>
<tr><th>${t.role}</th><td>${a.role.name || "—"}</td></tr>
<tr><th>${t.state}</th><td>${states(staff, a)}</td></tr>
<tr><th>${t.joined}</th><td>${a.created_at.slice(0, 10)}</td></tr>
<tr><th>${t.ip}</th><td>${a.ip ?? "—"}</td></tr>
${a.invite_request ? html`<tr><th>${t.reason}</th><td>${a.invite_request}</td></tr>` : ""}
</table>
<div class="actions">${undo}</div>
${
  roles
    ? html`<h2>${t.changeRole}</h2>
<form method="post" action="${path}/role">${formToken(staff)}
  <label for="role_id">${t.role}</label>
  <select id="role_id" name="role_id">
  <option value="">${t.noRole}</option>
  ${roles.map((r) => html`<option value="${r.id}"${r.id === found.role?.id ? " selected" : ""}>${r.name}</option>`)}
  </select>
  <div class="actions"><button type="submit">${t.saveRole}</button></div>
</form>`
    : ""
}
<h2>${t.act}</h2>
<form method="post" action="${path}/action">${formToken(staff)}
  ${reportId ? html`<input type="hidden" name="report_id" value="${reportId}">` : ""}
  <fieldset><legend>${t.action}</legend>
  ${ACTION_TYPES.map(
    (type) =>
      html`<p><label><input type="radio" name="type" value="${type}"${type === "none" ? " checked" : ""}> ${t.actions[type]}</label></p>`,
  )}
  </fieldset>
  <label for="text">${t.note}</label>
  <textarea id="text" name="text"></textarea>
  <p><label><input type="checkbox" name="send_email_notification" value="1" checked> ${t.notify}</label></p>
  <div class="actions"><button class="primary" type="submit">${t.perform}</button></div>
</form>`,
      }),
    );
  }),
);

accountPages.post(
  `${PATH}/:id/action`,
  adminRoute("manageUsers", async (c, staff) => {
    const id = c.req.param("id") ?? "";
    const p = staff.params;
    await takeAction(c.get("rt"), staff.actor, id, {
      type: text(p.type),
      reportId: text(p.report_id) || undefined,
      text: text(p.text),
      sendEmailNotification: p.send_email_notification === "1",
    });
    return saved(c, `${PATH}/${id}`);
  }),
);

accountPages.post(
  `${PATH}/:id/role`,
  adminRoute("manageRoles", async (c, staff) => {
    const id = c.req.param("id") ?? "";
    await changeUserRole(c.get("rt"), staff.actor, id, text(staff.params.role_id) || null);
    return saved(c, `${PATH}/${id}`);
  }),
);

const undoRoutes = {
  approve: approveAccount,
  enable: enableAccount,
  unsilence: unsilenceAccount,
  unsensitive: unsensitiveAccount,
  unsuspend: unsuspendAccount,
} as const;

for (const [name, run] of Object.entries(undoRoutes)) {
  accountPages.post(
    `${PATH}/:id/${name}`,
    adminRoute("manageUsers", async (c, staff) => {
      const id = c.req.param("id") ?? "";
      await run(c.get("rt"), staff.actor, id);
      return saved(c, `${PATH}/${id}`);
    }),
  );
}

accountPages.post(
  `${PATH}/:id/reject`,
  adminRoute("manageUsers", async (c, staff) => {
    await rejectAccount(c.get("rt"), staff.actor, c.req.param("id") ?? "");
    return saved(c, PATH);
  }),
);

accountPages.post(
  `${PATH}/:id/delete`,
  adminRoute("deleteUserData", async (c, staff) => {
    const id = c.req.param("id") ?? "";
    await deleteAccountData(c.get("rt"), staff.actor, id);
    return saved(c, `${PATH}/${id}`);
  }),
);
