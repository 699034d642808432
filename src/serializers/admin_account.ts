// The Admin::Account entity: an account as moderators see it, with its user's sign-up details.
import { roleEntity } from "../domain/roles.ts";
import type { Runtime } from "../runtime.ts";
import { renderAccounts } from "./account.ts";

export async function renderAdminAccounts(rt: Runtime, ids: readonly string[]) {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map<string, Record<string, unknown>>();
  const rows = await rt.db
    .selectFrom("accounts as a")
    .leftJoin("users as u", "u.account_id", "a.id")
    .select([
      "a.id",
      "a.username",
      "a.domain",
      "a.created_at",
      "a.silenced_at",
      "a.suspended_at",
      "u.email",
      "u.sign_up_ip",
      "u.locale",
      "u.sign_up_reason",
      "u.role",
      "u.confirmed_at",
      "u.approved",
      "u.disabled",
      "u.created_by_application_id",
    ])
    .where("a.id", "in", unique)
    .execute();
  const accounts = new Map((await renderAccounts(rt, unique)).map((a) => [a.id, a]));
  const out = new Map<string, Record<string, unknown>>();
  for (const r of rows) {
    const local = r.domain === null;
    out.set(r.id, {
      id: r.id,
      username: r.username,
      domain: r.domain,
      created_at: r.created_at.toISOString(),
      email: r.email ?? "",
      ip: r.sign_up_ip,
      // Sign-in addresses are not recorded; the sign-up address is the only one known.
      ips: r.sign_up_ip ? [{ ip: r.sign_up_ip, used_at: r.created_at.toISOString() }] : [],
      locale: r.locale ?? "",
      invite_request: r.sign_up_reason,
      role: roleEntity(r.role ?? "user"),
      confirmed: local && r.confirmed_at !== null,
      approved: local && r.approved === true,
      disabled: local && r.disabled === true,
      silenced: r.silenced_at !== null,
      suspended: r.suspended_at !== null,
      sensitized: false,
      created_by_application_id: r.created_by_application_id,
      invited_by_account_id: null,
      account: accounts.get(r.id) ?? null,
    });
  }
  return out;
}
