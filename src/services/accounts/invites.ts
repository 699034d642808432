// Invite links (Mastodon's invites): members whose role has `invite_users` make them, with a number
// of uses and an expiry from Mastodon's choices; staff who manage invites see and end everyone's. A sign-up through a valid one is allowed even when
// sign-ups are closed, and approved at once (unless its address or email domain needs approval).
// Using one counts in the sign-up's transaction, and only while it is valid, so that two sign-ups
// racing for its last use do not both get it.
import { randomBytes } from "node:crypto";
import type { Db } from "../../db/index.ts";
import { type Page, paginate } from "../../db/paginate.ts";
import { ApiError, fieldError, forbidden, notFound, validationFailed } from "../../domain/errors.ts";
import { isId, newId } from "../../domain/ids.ts";
import { can } from "../../domain/roles.ts";
import type { Runtime } from "../../runtime.ts";
import type { SessionUser } from "../auth/sessions.ts";
import { logAction } from "../moderation/audit_log.ts";
import { requirePermission, type Staff } from "../moderation/staff.ts";

/** Mastodon's choices: how many sign-ups an invite allows (null: any), and for how long (seconds). */
export const INVITE_USES = [null, 1, 5, 10, 25, 50, 100] as const;
export const INVITE_EXPIRIES = [null, 1800, 3600, 21_600, 43_200, 86_400, 604_800] as const;

const CODE_CHARS = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";

/** Eight characters, as Mastodon's codes, from an alphabet without look-alikes (48 bits). */
function newCode(): string {
  return [...randomBytes(8)].map((b) => CODE_CHARS[b % CODE_CHARS.length]).join("");
}

function requireInviter(user: SessionUser): void {
  if (!can(user.role, "inviteUsers") || user.disabled || user.suspended || !user.confirmed || !user.approved) {
    throw forbidden();
  }
}

export async function createInvite(
  rt: Runtime,
  user: SessionUser,
  input: { maxUses: number | null; expiresIn: number | null },
) {
  requireInviter(user);
  if (!INVITE_USES.includes(input.maxUses as never) || !INVITE_EXPIRIES.includes(input.expiresIn as never)) {
    throw new ApiError(422, "Validation failed: Max uses or expiry is not included in the list");
  }
  const now = new Date();
  await rt.db
    .insertInto("invites")
    .values({
      id: newId(),
      user_id: user.id,
      code: newCode(),
      max_uses: input.maxUses,
      uses: 0,
      expires_at: input.expiresIn === null ? null : new Date(now.getTime() + input.expiresIn * 1000),
      created_at: now,
    })
    .execute();
}

/** The member's invites, newest first. */
export async function listInvites(rt: Runtime, user: SessionUser) {
  requireInviter(user);
  return rt.db
    .selectFrom("invites")
    .select(["id", "code", "max_uses", "uses", "expires_at", "created_at"])
    .where("user_id", "=", user.id)
    .orderBy("id", "desc")
    .execute();
}

/** Ends one of the member's invites now. */
export async function expireInvite(rt: Runtime, user: SessionUser, id: string): Promise<void> {
  requireInviter(user);
  const ended = await rt.db
    .updateTable("invites")
    .set({ expires_at: new Date() })
    .where("id", "=", id)
    .where("user_id", "=", user.id)
    .executeTakeFirst();
  if (Number(ended.numUpdatedRows) === 0) throw notFound();
}

/** Every member's invites, for staff who manage them (Mastodon's admin invites), newest first. */
export async function listAllInvites(rt: Runtime, actor: Staff, filter: { expired: boolean }, page: Page) {
  requirePermission(actor, "manageInvites");
  const now = new Date();
  const query = rt.db
    .selectFrom("invites as i")
    .innerJoin("users as u", "u.id", "i.user_id")
    .innerJoin("accounts as a", "a.id", "u.account_id")
    .select([
      "i.id",
      "i.code",
      "i.max_uses",
      "i.uses",
      "i.expires_at",
      "i.created_at",
      "a.id as account_id",
      "a.username",
    ])
    .where((eb) => {
      const usable = eb.and([
        eb.or([eb("i.max_uses", "is", null), eb("i.uses", "<", eb.ref("i.max_uses"))]),
        eb.or([eb("i.expires_at", "is", null), eb("i.expires_at", ">", now)]),
      ]);
      return filter.expired ? eb.not(usable) : usable;
    });
  return paginate(query, "i.id", page);
}

/** Ends any member's invite now (Mastodon's "Deactivate"); the audit log keeps who did. */
export async function deactivateInvite(rt: Runtime, actor: Staff, id: string): Promise<void> {
  requirePermission(actor, "manageInvites");
  const ended = isId(id)
    ? await rt.db
        .updateTable("invites")
        .set({ expires_at: new Date() })
        .where("id", "=", id)
        .returning(["id", "code"])
        .executeTakeFirst()
    : undefined;
  if (!ended) throw notFound();
  await logAction(rt.db, actor, { action: "expire", targetType: "Invite", targetId: id, identifier: ended.code });
}

/** Whether an invite can still be used. */
export function inviteUsable(i: { max_uses: number | null; uses: number; expires_at: Date | null }): boolean {
  return (i.max_uses === null || i.uses < i.max_uses) && (i.expires_at === null || i.expires_at > new Date());
}

/** The invite behind a code while it can be used (and its maker may still invite), with its maker's username. */
export async function usableInvite(
  rt: Runtime,
  code: string,
): Promise<{ id: string; code: string; inviter: string } | null> {
  if (!code || code.length > 64) return null;
  const row = await rt.db
    .selectFrom("invites as i")
    .innerJoin("users as u", "u.id", "i.user_id")
    .innerJoin("accounts as a", "a.id", "u.account_id")
    .select(["i.id", "i.max_uses", "i.uses", "i.expires_at", "a.username", "a.suspended_at", "u.disabled"])
    .where("i.code", "=", code)
    .executeTakeFirst();
  if (!row || row.suspended_at || row.disabled || !inviteUsable(row)) return null;
  return { id: row.id, code, inviter: row.username };
}

/** Counts a use of an invite in the sign-up's transaction; a 422 when it was used up meanwhile. */
export async function useInvite(trx: Db, inviteId: string): Promise<void> {
  const now = new Date();
  const used = await trx
    .updateTable("invites")
    .set((eb) => ({ uses: eb("uses", "+", 1) }))
    .where("id", "=", inviteId)
    .where((eb) => eb.or([eb("max_uses", "is", null), eb("uses", "<", eb.ref("max_uses"))]))
    .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now)]))
    .executeTakeFirst();
  if (Number(used.numUpdatedRows) === 0) throw validationFailed({ invite_code: [fieldError.invalid()] });
}
