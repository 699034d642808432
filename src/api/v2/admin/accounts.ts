// Admin::Accounts v2: the filters of Mastodon's AccountFilter, by name.
import { z } from "zod";
import { params, router } from "../../../http/hono.ts";
import { parse, zStrings, zText } from "../../../http/validate.ts";
import { findAccounts } from "../../../services/moderation/account_list.ts";
import { listPage, readAccounts } from "../../v1/admin/accounts.ts";

export const adminAccountsV2 = router();

const schema = z.object({
  origin: zText(),
  status: zText(),
  permissions: zText(),
  role_ids: zStrings(),
  invited_by: zText(),
  username: zText(),
  display_name: zText(),
  by_domain: zText(),
  email: zText(),
  ip: zText(),
});

adminAccountsV2.get("/api/v2/admin/accounts", readAccounts, async (c) => {
  const p = parse(schema, await params(c));
  return listPage(c, (rt, actor, page) =>
    findAccounts(
      rt,
      actor,
      {
        origin: p.origin,
        status: p.status,
        permissions: p.permissions,
        roleIds: p.role_ids,
        invitedBy: p.invited_by,
        username: p.username,
        displayName: p.display_name,
        byDomain: p.by_domain,
        email: p.email,
        ip: p.ip,
      },
      page,
    ),
  );
});
