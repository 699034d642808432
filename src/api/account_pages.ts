// Accounts as answers: loaded by services/accounts/views.ts, rendered by the Account serializer.
// Lists of accounts (followers, blocks, follow requests…) with Mastodon's page size and a Link
// header paging by the list's own ids.

import type { AccountPage } from "../db/paginate.ts";
import type { Ctx } from "../http/hono.ts";
import type { Runtime } from "../runtime.ts";
import { type AccountEntity, renderAccounts, renderCredentialAccount } from "../serializers/account.ts";
import { loadAccountViews, loadCredentialView } from "../services/accounts/views.ts";
import { setLinkHeader } from "./pagination.ts";

/** Accounts by id, in the order given, without ids that do not exist. */
export async function accountEntities(rt: Runtime, ids: readonly string[]): Promise<AccountEntity[]> {
  return renderAccounts(rt, await loadAccountViews(rt, ids));
}

export async function accountEntity(rt: Runtime, id: string): Promise<AccountEntity | null> {
  return (await accountEntities(rt, [id]))[0] ?? null;
}

export async function credentialAccountEntity(rt: Runtime, userId: string) {
  return renderCredentialAccount(rt, await loadCredentialView(rt, userId));
}

/** 40 accounts a page unless asked otherwise, at most 80. */
export const ACCOUNT_PAGE = { default: 40, max: 80 };

export async function accountPage(c: Ctx, result: AccountPage) {
  setLinkHeader(c, c.get("rt").config.origin, result);
  return c.json(
    await accountEntities(
      c.get("rt"),
      result.items.map((i) => i.account_id),
    ),
  );
}
