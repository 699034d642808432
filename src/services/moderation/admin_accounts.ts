// What operators do to local accounts from the command line: create, approve, change, delete. Deleting
// is also what a member does to their own account on the settings page.
import { isEmailAddress } from "../../domain/emails.ts";
import { ApiError, notFound } from "../../domain/errors.ts";
import { hashPassword, randomToken } from "../../domain/secrets.ts";
import { USERNAME_FORMAT, USERNAME_MAX_LENGTH } from "../../domain/usernames.ts";
import type { Runtime } from "../../runtime.ts";
import { publishEvent } from "../../streaming/events.ts";
import { createLocalUser } from "../accounts/accounts.ts";
import { queueConfirmation } from "../accounts/email_confirmation.ts";
import { invalidateAuth } from "../auth/authenticate.ts";
import { revokeUserTokens } from "../auth/tokens.ts";
import { disableTwoFactor } from "../auth/two_factor.ts";
import { endOtherSessions } from "../auth/user_sessions.ts";

/**
 * An account made by the operator, with a generated password. Reserved names and email provider
 * rules do not apply (the operator may make "admin"); an unconfirmed address gets the mail.
 */
export async function createAccountAsOperator(
  rt: Runtime,
  input: { username: string; email: string; roleId: string | null; confirmed: boolean; approved: boolean },
): Promise<{ accountId: string; password: string }> {
  if (!USERNAME_FORMAT.test(input.username) || input.username.length > USERNAME_MAX_LENGTH) {
    throw new ApiError(422, "The username may only contain letters, numbers and underscores (at most 30)");
  }
  const email = input.email.trim().toLowerCase();
  if (!isEmailAddress(email)) throw new ApiError(422, "The email address is invalid");
  const password = randomToken(18);
  const created = await createLocalUser(rt, {
    ...input,
    email,
    password,
    afterCreate: input.confirmed
      ? undefined
      : (trx, userId) => queueConfirmation(rt, trx, { id: userId, email, fromApp: false, locale: null }),
  });
  return { accountId: created.accountId, password };
}

async function userOf(rt: Runtime, username: string) {
  const user = await rt.db
    .selectFrom("users as u")
    .innerJoin("accounts as a", "a.id", "u.account_id")
    .select(["u.id", "u.account_id", "a.username"])
    .where("a.acct_key", "=", `${username.toLowerCase()}@`)
    .executeTakeFirst();
  if (!user) throw notFound();
  return user;
}

export interface UserChanges {
  /** The new role (null: everyone's only); see roleIdByName. */
  roleId?: string | null;
  confirm?: boolean;
  approve?: boolean;
  disabled?: boolean;
  /** Turns two-factor sign-in off (a member who lost their device and recovery codes). */
  disableTwoFactor?: boolean;
  /** Sets a new random password, which is returned; every session and token of the user ends. */
  resetPassword?: boolean;
}

/** Changes a user; returns the new password when one was asked for. */
export async function modifyUser(
  rt: Runtime,
  username: string,
  changes: UserChanges,
): Promise<{ password: string | null }> {
  const user = await userOf(rt, username);
  const now = new Date();
  const password = changes.resetPassword ? randomToken(18) : null;
  const passwordHash = password ? await hashPassword(password) : null;
  await rt.db.transaction().execute(async (trx) => {
    await trx
      .updateTable("users")
      .set({
        ...(changes.roleId !== undefined ? { role_id: changes.roleId } : {}),
        ...(changes.confirm ? { confirmed_at: now, confirmation_token_hash: null } : {}),
        ...(changes.approve ? { approved: true } : {}),
        ...(changes.disabled !== undefined ? { disabled: changes.disabled } : {}),
        ...(passwordHash ? { password_hash: passwordHash, reset_password_token_hash: null } : {}),
        updated_at: now,
      })
      .where("id", "=", user.id)
      .execute();
    if (passwordHash) {
      await endOtherSessions(trx, user.id, null);
      await revokeUserTokens(trx, user.id);
    }
  });
  if (changes.disableTwoFactor) await disableTwoFactor(rt, user.id, null);
  await invalidateAuth(rt);
  await publishEvent(rt, "account.changed", { id: user.account_id });
  return { password };
}

export async function listUsers(rt: Runtime) {
  return rt.db
    .selectFrom("users as u")
    .innerJoin("accounts as a", "a.id", "u.account_id")
    .leftJoin("roles as r", "r.id", "u.role_id")
    .select([
      "a.username",
      "u.email",
      "r.name as role",
      "u.confirmed_at",
      "u.approved",
      "u.disabled",
      "u.sign_up_reason",
      "u.created_at",
    ])
    .orderBy("u.id")
    .execute();
}

/**
 * `rookery accounts delete`: the account is suspended at once (it shows nothing, its statuses leave
 * every read path and its sign-ins and tokens stop working) and purged by a job, as staff's
 * DELETE /api/v1/admin/accounts/:id does: its data and files go, the emptied account stays, so the
 * name is never given to someone else.
 */
export async function deleteLocalAccount(rt: Runtime, username: string): Promise<void> {
  const user = await userOf(rt, username);
  const now = new Date();
  await rt.db.transaction().execute(async (trx) => {
    await trx
      .updateTable("accounts")
      .set({ suspended_at: now, updated_at: now })
      .where("id", "=", user.account_id)
      .where("suspended_at", "is", null)
      .execute();
    await trx.updateTable("users").set({ disabled: true, updated_at: now }).where("id", "=", user.id).execute();
    await revokeUserTokens(trx, user.id);
    await endOtherSessions(trx, user.id, null);
    await rt.queue.enqueue("accounts.purge", { accountId: user.account_id, now: true }, {}, trx);
  });
  await invalidateAuth(rt);
  await publishEvent(rt, "account.changed", { id: user.account_id });
}
