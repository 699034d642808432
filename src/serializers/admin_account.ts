// The Admin::Account entity: an account as moderators see it, with its user's sign-up details.
import { roleEntity } from "../domain/roles.ts";
import type { Runtime } from "../runtime.ts";
import type { AdminAccountView } from "../services/moderation/report_views.ts";
import { renderAccountView } from "./account.ts";

export function renderAdminAccount(rt: Runtime, { row: r, account, role, ips }: AdminAccountView) {
  const local = r.domain === null;
  return {
    id: r.id,
    username: r.username,
    domain: r.domain,
    created_at: r.created_at.toISOString(),
    email: r.email ?? "",
    ip: ips[0]?.ip ?? null,
    ips: ips.map((i) => ({ ip: i.ip, used_at: i.used_at.toISOString() })),
    locale: r.locale ?? "",
    invite_request: r.sign_up_reason,
    role: roleEntity(role),
    confirmed: local && r.confirmed_at !== null,
    approved: local && r.approved === true,
    disabled: local && r.disabled === true,
    silenced: r.silenced_at !== null,
    suspended: r.suspended_at !== null,
    sensitized: r.sensitized_at !== null,
    created_by_application_id: r.created_by_application_id,
    invited_by_account_id: r.invited_by_account_id ?? null,
    account: account ? renderAccountView(rt, account) : null,
  };
}
