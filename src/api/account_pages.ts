// Lists of accounts (followers, blocks, follow requests…): Mastodon's page size and the answer,
// accounts in the list's order with a Link header paging by the list's own ids.

import type { AccountPage } from "../db/paginate.ts";
import type { Ctx } from "../http/hono.ts";
import { renderAccounts } from "../serializers/account.ts";
import { setLinkHeader } from "./pagination.ts";

/** 40 accounts a page unless asked otherwise, at most 80. */
export const ACCOUNT_PAGE = { default: 40, max: 80 };

export async function accountPage(c: Ctx, result: AccountPage) {
  setLinkHeader(c, c.var.rt.config.origin, result);
  return c.json(
    await renderAccounts(
      c.var.rt,
      result.items.map((i) => i.account_id),
    ),
  );
}
