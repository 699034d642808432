// Staff roles as Mastodon presents them: a role entity with its permission bitmask, and the
// "highlighted" badge shown on profiles.
import type { Role } from "../db/schema.ts";

// Mastodon's permission bits (UserRole::FLAGS).
const P = {
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

const ALL = Object.values(P).reduce((a, b) => a | b, 0);

export type Permission = keyof typeof P;

interface RoleInfo {
  id: string;
  name: string;
  permissions: number;
  highlighted: boolean;
  /** Mastodon's position: staff act only on accounts whose role sits below their own. */
  position: number;
}

const ROLES: Record<Role, RoleInfo> = {
  user: { id: "-99", name: "", permissions: P.inviteUsers, highlighted: false, position: -1 },
  moderator: {
    id: "1",
    name: "Moderator",
    permissions:
      P.inviteUsers |
      P.viewAuditLog |
      P.viewDashboard |
      P.manageReports |
      P.manageTaxonomies |
      P.manageAppeals |
      P.manageUsers,
    highlighted: true,
    position: 10,
  },
  admin: { id: "2", name: "Admin", permissions: ALL & ~P.administrator & ~P.devops, highlighted: true, position: 100 },
  owner: { id: "3", name: "Owner", permissions: ALL, highlighted: true, position: 1000 },
};

export const ROLE_NAMES = Object.keys(ROLES) as Role[];

/** The Role entity of CredentialAccount. */
export function roleEntity(role: Role) {
  const r = ROLES[role];
  return { id: r.id, name: r.name, permissions: String(r.permissions), color: "", highlighted: r.highlighted };
}

/** The public badges of Account.roles. */
export function highlightedRoles(role: Role | null): { id: string; name: string; color: string }[] {
  if (!role) return [];
  const r = ROLES[role];
  return r.highlighted ? [{ id: r.id, name: r.name, color: "" }] : [];
}

/** The role of `role_ids[]` in the admin API, or null for an id no role has. */
export function roleById(id: string): Role | null {
  return ROLE_NAMES.find((r) => ROLES[r].id === id) ?? null;
}

/** The roles holding a permission (the administrator flag holds them all). */
export function rolesWith(permission: Permission): Role[] {
  return ROLE_NAMES.filter((r) => can(r, permission));
}

/** Whether `actor` may act on an account of role `target` (Mastodon's `overrides?`). */
export function outranks(actor: Role, target: Role | null): boolean {
  return target === null || ROLES[actor].position > ROLES[target].position;
}

/** Whether a role holds a permission (the administrator flag holds them all). */
export function can(role: Role, permission: Permission): boolean {
  const granted = ROLES[role].permissions;
  return (granted & (P[permission] | P.administrator)) !== 0;
}
