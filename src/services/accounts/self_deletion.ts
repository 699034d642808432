// A member deleting their own account from the settings page, with their password: what
// `rookery accounts delete` does (deleteLocalAccount): suspended at once, signed out everywhere, its
// data purged by a job, and the emptied account kept so that its name is never given again.
import type { Runtime } from "../../runtime.ts";
import { requireOwnPassword } from "../auth/credentials.ts";
import type { SessionUser } from "../auth/sessions.ts";
import { deleteLocalAccount } from "../moderation/admin_accounts.ts";

export async function deleteOwnAccount(rt: Runtime, user: SessionUser, password: string, ip: string | null) {
  await requireOwnPassword(rt, user, password, ip);
  const account = await rt.db
    .selectFrom("accounts")
    .select("username")
    .where("id", "=", user.accountId)
    .executeTakeFirstOrThrow();
  await deleteLocalAccount(rt, account.username);
}
