// Who acts in moderation, and the checks every moderation service makes before it changes
// anything: the role's permission (the token's scope is the API's to check), and Mastodon's rule
// that staff act only on accounts whose role sits below their own.
import { ApiError } from "../../domain/errors.ts";
import { can, outranks, type Permission, type UserRole } from "../../domain/roles.ts";

/** A member of staff acting: the API's token user, or the web admin's signed-in user. */
export interface Staff {
  accountId: string;
  role: UserRole;
}

export const notAllowed = () => new ApiError(403, "This action is not allowed");

export function requirePermission(actor: Staff, permission: Permission): void {
  if (!can(actor.role, permission)) throw notAllowed();
}

/** Refuses acting on oneself, or on an account whose role is not below the actor's. */
export function requireAbove(actor: Staff, target: { id: string; role: UserRole | null }): void {
  if (target.id === actor.accountId || !outranks(actor.role, target.role)) throw notAllowed();
}
