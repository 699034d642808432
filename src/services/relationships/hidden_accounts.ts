// The accounts a viewer does not see in lists and searches: those they block or mute, and those
// who block them. One subquery, so every read path leaves out the same accounts.
import { unexpired } from "../../db/expiry.ts";
import type { Db } from "../../db/index.ts";

export function hiddenAccountIds(db: Db, viewerId: string, options: { mutes?: boolean } = {}) {
  let q = db
    .selectFrom("blocks")
    .select("target_account_id as account_id")
    .where("account_id", "=", viewerId)
    .union(db.selectFrom("blocks").select("account_id").where("target_account_id", "=", viewerId));
  if (options.mutes !== false) {
    q = q.union(
      db
        .selectFrom("mutes")
        .select("target_account_id as account_id")
        .where("account_id", "=", viewerId)
        .where(unexpired("expires_at")),
    );
  }
  return q;
}
