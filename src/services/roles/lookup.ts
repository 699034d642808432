// The role table, read once per process: authentication resolves every request's role through it,
// so it is cached and dropped in every process when a role changes (invalidateRoles).
import { EVERYONE_ID, effectiveRole, type RoleRow, type UserRole } from "../../domain/roles.ts";
import type { Runtime } from "../../runtime.ts";
import { cached, invalidate } from "../cache.ts";

const KEY = "roles";
// Changes invalidate the cache everywhere; the expiry only bounds a load that raced a change.
const TTL_MS = 10 * 60_000;

export interface RoleTable {
  /** Every role, everyone's included, by id. */
  byId: Map<string, RoleRow>;
  everyone: RoleRow;
}

const NO_EVERYONE: RoleRow = { id: EVERYONE_ID, name: "", color: "", position: -1, permissions: 0, highlighted: false };

export function roleTable(rt: Runtime): Promise<RoleTable> {
  return cached(rt, KEY, TTL_MS, async () => {
    const rows = await rt.db
      .selectFrom("roles")
      .select(["id", "name", "color", "position", "permissions", "highlighted"])
      .execute();
    const byId = new Map(
      rows.map((r) => [String(r.id), { ...r, id: String(r.id), highlighted: Boolean(r.highlighted) }]),
    );
    return { byId, everyone: byId.get(EVERYONE_ID) ?? NO_EVERYONE };
  });
}

/** The roles of users by their role_id (null, or a role since deleted: everyone). */
export async function rolesOf(rt: Runtime): Promise<(roleId: string | null) => UserRole> {
  const table = await roleTable(rt);
  return (roleId) => effectiveRole(roleId === null ? null : (table.byId.get(String(roleId)) ?? null), table.everyone);
}

/** The role of one user by their role_id. */
export async function roleOf(rt: Runtime, roleId: string | null): Promise<UserRole> {
  return (await rolesOf(rt))(roleId);
}

/** Tells every process that roles changed. */
export function invalidateRoles(rt: Runtime): Promise<void> {
  return invalidate(rt, KEY);
}
