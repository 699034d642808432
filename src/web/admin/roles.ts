// Staff roles (Mastodon's Admin::RolesController): the list, a form to create one, and one to edit
// or delete each role the visitor outranks. The rules (who may grant what, positions, the Owner)
// and the audit log are the roles service's; a form refused comes back as a page saying why.
import { html } from "hono/html";
import { EVERYONE_ID, PERMISSION_NAMES, PERMISSIONS, type RoleRow } from "../../domain/roles.ts";
import { router } from "../../http/hono.ts";
import type { Params } from "../../http/params.ts";
import { notAllowed } from "../../services/moderation/staff.ts";
import {
  createRole,
  deleteRole,
  listRoles,
  mayDelete,
  mayEdit,
  type RoleInput,
  roleForStaff,
  updateRole,
} from "../../services/roles/manage.ts";
import { adminPage, button, formToken } from "./frame.ts";
import { adminRoute, type StaffVisit, saved } from "./guard.ts";

export const rolePages = router();

const PATH = "/admin/roles";
const text = (value: unknown) => (typeof value === "string" ? value.trim() : "");

/** What a role's form posted, as the service takes it; a position that is not a number is refused there. */
function inputOf(p: Params): RoleInput {
  const permissions = Array.isArray(p.permissions) ? p.permissions.filter((v) => typeof v === "string") : [];
  const position = text(p.position);
  return {
    name: text(p.name),
    color: text(p.color),
    position: /^-?\d{1,10}$/.test(position) ? Number(position) : Number.NaN,
    permissions,
    highlighted: p.highlighted === "1",
  };
}

const swatch = (color: string) =>
  color ? html`<span class="swatch" style="background:${color}" aria-hidden="true"></span> ` : "";

function roleForm(staff: StaffVisit, role: RoleRow | null, action: string, submit: string) {
  const t = staff.lang.t.admin.roles;
  const everyone = role?.id === EVERYONE_ID;
  const permission = (p: (typeof PERMISSION_NAMES)[number]) => {
    // Permissions the visitor lacks cannot be granted (Mastodon disables them too).
    const held = (staff.user.role.permissions & PERMISSIONS[p]) !== 0;
    const checked = role !== null && (role.permissions & PERMISSIONS[p]) !== 0;
    return html`<p><label><input type="checkbox" name="permissions[]" value="${p}"${checked ? " checked" : ""}${held ? "" : " disabled"}> ${t.permissionNames[p]}</label></p>`;
  };
  return html`<form method="post" action="${action}">${formToken(staff)}
${
  everyone
    ? html`<p>${t.everyoneHint}</p>`
    : html`<label for="name">${t.name}</label>
  <input id="name" name="name" type="text" required maxlength="255" value="${role?.name ?? ""}">
  <label for="color">${t.color}</label>
  <input id="color" name="color" type="text" pattern="#?([0-9A-Fa-f]{3}){1,2}" value="${role?.color ?? ""}">
  <label for="position">${t.position}</label>
  <input id="position" name="position" type="number" required value="${String(role?.position ?? 0)}">
  <p>${t.positionHint}</p>
  <p><label><input type="checkbox" name="highlighted" value="1"${role?.highlighted ? " checked" : ""}> ${t.highlighted}</label></p>`
}
  <fieldset><legend>${t.permissions}</legend>
  ${PERMISSION_NAMES.map(permission)}
  </fieldset>
  <div class="actions"><button class="primary" type="submit">${submit}</button></div>
</form>`;
}

rolePages.get(
  PATH,
  adminRoute("manageRoles", async (c, staff) => {
    const t = staff.lang.t.admin.roles;
    const roles = await listRoles(c.get("rt"), staff.actor);
    const row = (r: RoleRow) =>
      html`<tr><td>${swatch(r.color)}${r.id === EVERYONE_ID ? t.everyone : r.name}</td><td>${r.id === EVERYONE_ID ? "" : String(r.position)}</td><td>${PERMISSION_NAMES.filter((p) => r.permissions & PERMISSIONS[p]).length}</td><td>${mayEdit(staff.actor, r) ? html`<a href="${PATH}/${r.id}/edit">${t.edit}</a>` : ""}</td></tr>`;
    return c.html(
      adminPage(c, staff, {
        title: t.title,
        section: "roles",
        body: html`<p>${t.lead}</p>
<table><thead><tr><th>${t.name}</th><th>${t.position}</th><th>${t.permissions}</th><th></th></tr></thead><tbody>
${roles.map(row)}
</tbody></table>
<p><a href="${PATH}/new">${t.add}</a></p>`,
      }),
    );
  }),
);

rolePages.get(
  `${PATH}/new`,
  adminRoute("manageRoles", async (c, staff) => {
    const t = staff.lang.t.admin.roles;
    return c.html(
      adminPage(c, staff, { title: t.newTitle, section: "roles", body: roleForm(staff, null, PATH, t.create) }),
    );
  }),
);

rolePages.post(
  PATH,
  adminRoute("manageRoles", async (c, staff) => {
    await createRole(c.get("rt"), staff.actor, inputOf(staff.params));
    return saved(c, PATH);
  }),
);

rolePages.get(
  `${PATH}/:id/edit`,
  adminRoute("manageRoles", async (c, staff) => {
    const t = staff.lang.t.admin.roles;
    const role = await roleForStaff(c.get("rt"), staff.actor, c.req.param("id") ?? "");
    if (!mayEdit(staff.actor, role)) throw notAllowed();
    const path = `${PATH}/${role.id}`;
    return c.html(
      adminPage(c, staff, {
        title: t.editTitle(role.id === EVERYONE_ID ? t.everyone : role.name),
        section: "roles",
        body: html`${roleForm(staff, role, path, t.save)}
${mayDelete(staff.actor, role) ? html`<div class="actions">${button(staff, `${path}/delete`, t.delete)}</div>` : ""}`,
      }),
    );
  }),
);

rolePages.post(
  `${PATH}/:id`,
  adminRoute("manageRoles", async (c, staff) => {
    const id = c.req.param("id") ?? "";
    const role = await roleForStaff(c.get("rt"), staff.actor, id);
    // Everyone's role has no name or position to post.
    const input = inputOf(staff.params);
    await updateRole(
      c.get("rt"),
      staff.actor,
      id,
      role.id === EVERYONE_ID ? { ...input, name: "", position: role.position, highlighted: false } : input,
    );
    return saved(c, PATH);
  }),
);

rolePages.post(
  `${PATH}/:id/delete`,
  adminRoute("manageRoles", async (c, staff) => {
    await deleteRole(c.get("rt"), staff.actor, c.req.param("id") ?? "");
    return saved(c, PATH);
  }),
);
