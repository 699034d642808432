// Managing staff roles as Mastodon does (UserRole, UserRolePolicy, Admin::RolesController and the
// "Change role" form): only staff whose role may manage roles, only on roles below their own (or,
// name and colour aside, their own), never granting a permission they lack nor placing a role
// above theirs; the Owner stays as it is. Every change is in the audit log and reaches every
// process's role table and sessions at once.
import type { Db } from "../../db/index.ts";
import { ApiError, type FieldError, fieldError, notFound, validationFailed } from "../../domain/errors.ts";
import { isId, newId } from "../../domain/ids.ts";
import {
  BUILT_IN_ROLES,
  type BuiltInRole,
  EVERYONE_ID,
  EVERYONE_POSITION,
  maskOf,
  OWNER_ID,
  outranks,
  PERMISSIONS,
  POSITION_LIMIT,
  type RoleRow,
} from "../../domain/roles.ts";
import type { Runtime } from "../../runtime.ts";
import { publishEvent } from "../../streaming/events.ts";
import { invalidateAuth } from "../auth/authenticate.ts";
import { accountForStaff, acctOf } from "../moderation/account_list.ts";
import { logAction } from "../moderation/audit_log.ts";
import { notAllowed, requireAbove, requirePermission, type Staff } from "../moderation/staff.ts";
import { invalidateRoles, roleTable } from "./lookup.ts";

export interface RoleInput {
  name: string;
  /** `#rgb` or `#rrggbb`, or empty. */
  color: string;
  position: number;
  /** Permission names (`manageReports`…); unknown ones are ignored. */
  permissions: readonly string[];
  highlighted: boolean;
}

const NAME_MAX = 255;
const COLOR = /^#?(?:[A-F0-9]{3}){1,2}$/i;
const LABELS = { permissions: "Permissions" };

/** Every role, highest first, everyone's last; for staff who may manage roles. */
export async function listRoles(rt: Runtime, actor: Staff): Promise<RoleRow[]> {
  requirePermission(actor, "manageRoles");
  const table = await roleTable(rt);
  return [...table.byId.values()].sort((a, b) => b.position - a.position || Number(BigInt(a.id) - BigInt(b.id)));
}

/** One role, for staff who may manage roles; a 404 when there is none. */
export async function roleForStaff(rt: Runtime, actor: Staff, id: string): Promise<RoleRow> {
  requirePermission(actor, "manageRoles");
  const role = (id === EVERYONE_ID || isId(id)) && (await roleTable(rt)).byId.get(id);
  if (!role) throw notFound();
  return role;
}

/** Whether the actor may edit a role (Mastodon's UserRolePolicy#update?). */
export const mayEdit = (actor: Staff, role: RoleRow) =>
  role.id !== OWNER_ID && (outranks(actor.role, role) || actor.role.id === role.id);

/** Whether the actor may delete a role (UserRolePolicy#destroy?). */
export const mayDelete = (actor: Staff, role: RoleRow) =>
  role.id !== EVERYONE_ID && role.id !== OWNER_ID && role.id !== actor.role.id && outranks(actor.role, role);

/** The roles the actor may give to someone, lowest first (those below their own). */
export async function assignableRoles(rt: Runtime, actor: Staff): Promise<RoleRow[]> {
  const table = await roleTable(rt);
  return [...table.byId.values()]
    .filter((r) => r.id !== EVERYONE_ID && outranks(actor.role, r))
    .sort((a, b) => a.position - b.position);
}

/** The checks of Mastodon's UserRole validations, for a role as it would be saved. */
function validate(actor: Staff, role: RoleRow, before: RoleRow | null): void {
  const errors: Record<string, FieldError[]> = {};
  const add = (attribute: string, error: FieldError) => {
    errors[attribute] = [...(errors[attribute] ?? []), error];
  };
  const everyone = role.id === EVERYONE_ID;
  if (!everyone && !role.name) add("name", fieldError.blank);
  if (role.name.length > NAME_MAX) add("name", fieldError.tooLong(NAME_MAX));
  if (role.color && !COLOR.test(role.color)) add("color", fieldError.invalid());
  if (!Number.isSafeInteger(role.position) || Math.abs(role.position) > POSITION_LIMIT) {
    add("position", fieldError.invalid());
  } else if (role.position > actor.role.position) {
    add("position", fieldError.invalid("cannot be higher than your current role"));
  }
  if ((actor.role.permissions & role.permissions) !== role.permissions) {
    add("permissions", fieldError.invalid("cannot include permissions your current role does not possess"));
  }
  if (everyone && (role.permissions & ~PERMISSIONS.inviteUsers) !== 0) {
    add("permissions", fieldError.invalid("include permissions that are not safe for the base role"));
  }
  if (before && actor.role.id === role.id) {
    if (before.permissions !== role.permissions)
      add("permissions", fieldError.invalid("cannot be changed with your current role"));
    if (before.position !== role.position)
      add("position", fieldError.invalid("cannot be changed with your current role"));
  }
  if (Object.keys(errors).length > 0) throw validationFailed(errors, LABELS);
}

const rowOf = (id: string, input: RoleInput): RoleRow => ({
  id,
  name: input.name.trim(),
  color: input.color.trim(),
  position: id === EVERYONE_ID ? EVERYONE_POSITION : input.position,
  permissions: maskOf(input.permissions),
  highlighted: input.highlighted,
});

async function changed(rt: Runtime): Promise<void> {
  await invalidateRoles(rt);
  // Tokens and sessions carry their user's role.
  await invalidateAuth(rt);
}

async function log(db: Db, actor: Staff, action: string, role: RoleRow): Promise<void> {
  await logAction(db, actor, { action, targetType: "UserRole", targetId: role.id, identifier: role.name });
}

export async function createRole(rt: Runtime, actor: Staff, input: RoleInput): Promise<RoleRow> {
  requirePermission(actor, "manageRoles");
  const role = rowOf(newId(), input);
  validate(actor, role, null);
  const now = new Date();
  await rt.db.transaction().execute(async (trx) => {
    await trx
      .insertInto("roles")
      .values({ ...role, created_at: now, updated_at: now })
      .execute();
    await log(trx, actor, "create", role);
  });
  await changed(rt);
  return role;
}

export async function updateRole(rt: Runtime, actor: Staff, id: string, input: RoleInput): Promise<RoleRow> {
  const before = await roleForStaff(rt, actor, id);
  if (!mayEdit(actor, before)) throw notAllowed();
  const role = rowOf(id, input);
  validate(actor, role, before);
  await rt.db.transaction().execute(async (trx) => {
    const { id: _, ...values } = role;
    await trx
      .updateTable("roles")
      .set({ ...values, updated_at: new Date() })
      .where("id", "=", id)
      .execute();
    await log(trx, actor, "update", role);
  });
  await changed(rt);
  return role;
}

/** Deletes a role; its users keep only everyone's. */
export async function deleteRole(rt: Runtime, actor: Staff, id: string): Promise<void> {
  const role = await roleForStaff(rt, actor, id);
  if (!mayDelete(actor, role)) throw notAllowed();
  const changedUsers = await rt.db.transaction().execute(async (trx) => {
    const users = await trx.selectFrom("users").select("account_id").where("role_id", "=", id).execute();
    await trx.updateTable("users").set({ role_id: null }).where("role_id", "=", id).execute();
    await trx.deleteFrom("roles").where("id", "=", id).execute();
    await log(trx, actor, "destroy", role);
    return users;
  });
  await changed(rt);
  for (const u of changedUsers) await publishEvent(rt, "account.changed", { id: u.account_id });
}

/**
 * Mastodon's "Change role": staff who may manage roles give a user a role below their own, or take
 * it away (`roleId` null), when the user's present role is below theirs too.
 */
export async function changeUserRole(
  rt: Runtime,
  actor: Staff,
  accountId: string,
  roleId: string | null,
): Promise<void> {
  requirePermission(actor, "manageRoles");
  const account = await accountForStaff(rt, actor, accountId);
  if (account.user_id === null) throw new ApiError(422, "Only local accounts have a role");
  requireAbove(actor, account);
  const table = await roleTable(rt);
  const role = roleId === null || roleId === EVERYONE_ID ? null : table.byId.get(roleId);
  if (role === undefined) throw validationFailed({ role_id: [fieldError.inclusion] }, { role_id: "Role" });
  if (role && !outranks(actor.role, role)) throw notAllowed();
  const userId = account.user_id;
  await rt.db.transaction().execute(async (trx) => {
    await trx
      .updateTable("users")
      .set({ role_id: role?.id ?? null, updated_at: new Date() })
      .where("id", "=", userId)
      .execute();
    await logAction(trx, actor, {
      action: "change_role",
      targetType: "User",
      targetId: userId,
      identifier: acctOf(account),
    });
  });
  await invalidateAuth(rt);
  await publishEvent(rt, "account.changed", { id: account.id });
}

/**
 * The role the command line names: a built-in one by its key (user, moderator, admin, owner) or any
 * role by its name, in any case; null for everyone's.
 */
export async function roleIdByName(rt: Runtime, name: string): Promise<string | null> {
  const key = name.trim().toLowerCase();
  if (key in BUILT_IN_ROLES) return BUILT_IN_ROLES[key as BuiltInRole];
  const role = [...(await roleTable(rt)).byId.values()].find(
    (r) => r.id !== EVERYONE_ID && r.name.toLowerCase() === key,
  );
  if (!role) throw new ApiError(422, `No such role: ${name}`);
  return role.id;
}
