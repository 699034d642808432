// GET /api/v1/directory: the profile directory, accounts that chose to be listed (`discoverable`),
// as Mastodon lists them: live, not suspended, limited or moved, and none the viewer blocks, mutes
// or is blocked by.
import { sql } from "kysely";
import type { Runtime } from "../../runtime.ts";
import { hiddenAccountIds } from "../relationships/hidden_accounts.ts";
import { LIVE_ACCOUNT } from "./accounts.ts";

export interface DirectoryQuery {
  offset: number;
  limit: number;
  /** `active`: most recently posting first; `new`: newest accounts first. */
  order: "active" | "new";
  local: boolean;
}

export async function directory(rt: Runtime, viewerId: string | null, d: DirectoryQuery): Promise<string[]> {
  let q = rt.db
    .selectFrom("accounts as a")
    .leftJoin("users as u", "u.account_id", "a.id")
    .innerJoin("account_stats as st", "st.account_id", "a.id")
    .select("a.id")
    .where("a.discoverable", "=", true)
    .where("a.suspended_at", "is", null)
    .where("a.silenced_at", "is", null)
    .where("a.moved_to_account_id", "is", null)
    .where(LIVE_ACCOUNT);
  if (d.local) q = q.where("a.domain", "is", null);
  if (viewerId !== null) q = q.where("a.id", "not in", hiddenAccountIds(rt.db, viewerId));
  q =
    d.order === "new"
      ? q.orderBy("a.id", "desc")
      : q.orderBy(sql`st.last_status_at desc nulls last`).orderBy("a.id", "desc");
  const rows = await q.limit(d.limit).offset(d.offset).execute();
  return rows.map((r) => r.id);
}
