// The accounts the caller mutes, as MutedAccount entities (an Account with `mute_expires_at`).
// Muting and unmuting are in accounts_relationships.ts.

import { params, router } from "../../http/hono.ts";
import { listMutes } from "../../services/relationships/mutes.ts";
import { ACCOUNT_PAGE, accountEntities } from "../account_pages.ts";
import { currentUser, requireUser } from "../auth.ts";
import { pageParams, setLinkHeader } from "../pagination.ts";

export const mutes = router();

mutes.get("/api/v1/mutes", requireUser("read:mutes"), async (c) => {
  const page = pageParams(await params(c), ACCOUNT_PAGE);
  const result = await listMutes(c.get("rt"), currentUser(c).accountId, page);
  const accounts = await accountEntities(
    c.get("rt"),
    result.items.map((m) => m.account_id),
  );
  const expiry = new Map(result.items.map((m) => [m.account_id, m.expires_at]));
  setLinkHeader(c, c.get("rt").config.origin, result);
  return c.json(accounts.map((a) => ({ ...a, mute_expires_at: expiry.get(a.id)?.toISOString() ?? null })));
});
