// The accounts the caller blocks. Blocking and unblocking are in accounts_relationships.ts.

import { params, router } from "../../http/hono.ts";
import { listBlocks } from "../../services/relationships/blocks.ts";
import { ACCOUNT_PAGE, accountPage } from "../account_pages.ts";
import { currentUser, requireUser } from "../auth.ts";
import { pageParams } from "../pagination.ts";

export const blocks = router();

blocks.get("/api/v1/blocks", requireUser("read:blocks"), async (c) => {
  const page = pageParams(await params(c), ACCOUNT_PAGE);
  return accountPage(c, await listBlocks(c.get("rt"), currentUser(c).accountId, page));
});
