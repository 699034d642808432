// Staff roles as Mastodon has them (UserRole): a permission bitmask, a position that says who may
// act on whom, and the "highlighted" badge shown on profiles. The rows live in the roles table;
// these are the pure rules over them.

// Mastodon's permission bits (UserRole::FLAGS), in its order.
export const PERMISSIONS = {
  administrator: 1 << 0,
  devops: 1 << 1,
  viewAuditLog: 1 << 2,
  viewDashboard: 1 << 3,
  manageReports: 1 << 4,
  manageFederation: 1 << 5,
  manageSettings: 1 << 6,
  manageBlocks: 1 << 7,
  manageTaxonomies: 1 << 8,
  manageAppeals: 1 << 9,
  manageUsers: 1 << 10,
  manageInvites: 1 << 11,
  manageRules: 1 << 12,
  manageAnnouncements: 1 << 13,
  manageCustomEmojis: 1 << 14,
  manageWebhooks: 1 << 15,
  inviteUsers: 1 << 16,
  manageRoles: 1 << 17,
  manageUserAccess: 1 << 18,
  deleteUserData: 1 << 19,
} as const;

export type Permission = keyof typeof PERMISSIONS;

export const PERMISSION_NAMES = Object.keys(PERMISSIONS) as Permission[];

const ALL = Object.values(PERMISSIONS).reduce((a, b) => a | b, 0);

/** The role every user has; its permissions are added to every other role's. */
export const EVERYONE_ID = "-99";
/** The built-in Owner, which nobody edits. */
export const OWNER_ID = "3";
/** Mastodon's position of "everyone" (and of "nobody"): below every staff role. */
export const EVERYONE_POSITION = -1;
/** Positions are integers in both databases. */
export const POSITION_LIMIT = 2 ** 31 - 1;

/** The built-in roles by the names the command line has always taken ("user": everyone). */
export const BUILT_IN_ROLES = { user: null, moderator: "1", admin: "2", owner: OWNER_ID } as const;
export type BuiltInRole = keyof typeof BUILT_IN_ROLES;

/** A row of the roles table. */
export interface RoleRow {
  id: string;
  name: string;
  color: string;
  position: number;
  permissions: number;
  highlighted: boolean;
}

/** A user's role as the checks use it: `permissions` include everyone's (Mastodon's computed_permissions). */
export type UserRole = RoleRow;

/** The role of a user, given their role's row (null: everyone) and everyone's row. */
export function effectiveRole(row: RoleRow | null, everyone: RoleRow): UserRole {
  if (!row || row.id === EVERYONE_ID) return { ...everyone, position: EVERYONE_POSITION };
  const granted = row.permissions | everyone.permissions;
  return { ...row, permissions: granted & PERMISSIONS.administrator ? ALL : granted };
}

/** Whether a role holds a permission (the administrator flag holds them all). */
export function can(role: UserRole, permission: Permission): boolean {
  return (role.permissions & (PERMISSIONS[permission] | PERMISSIONS.administrator)) !== 0;
}

/** Whether `actor` may act on an account (or a role) of role `target` (Mastodon's `overrides?`). */
export function outranks(actor: UserRole, target: { position: number } | null): boolean {
  return target === null || actor.position > target.position;
}

/** The bitmask of permission names; unknown names are ignored, as Mastodon does. */
export const maskOf = (names: readonly string[]): number =>
  names.reduce((mask, name) => mask | (PERMISSIONS[name as Permission] ?? 0), 0);

/** The Role entity (CredentialAccount `role`, Admin::Account `role`). */
export function roleEntity(role: UserRole) {
  return {
    id: role.id,
    name: role.name,
    permissions: String(role.permissions),
    color: role.color,
    highlighted: role.highlighted,
  };
}

/** The public badges of Account.roles. */
export function highlightedRoles(role: UserRole | null): { id: string; name: string; color: string }[] {
  return role?.highlighted ? [{ id: role.id, name: role.name, color: role.color }] : [];
}
