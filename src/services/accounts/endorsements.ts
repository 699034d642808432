// Endorsements (featured profiles): accounts one shows on one's own profile. Only followed accounts
// can be featured; unfollowing one takes it off (follow_graph.ts).
import { type AccountPage, type Page, paginate } from "../../db/paginate.ts";
import { notFound, unprocessable } from "../../domain/errors.ts";
import { isId, newId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import { requireAccount } from "../relationships/targets.ts";

export async function endorse(rt: Runtime, accountId: string, targetId: string): Promise<void> {
  await requireAccount(rt.db, targetId);
  await rt.db.transaction().execute(async (trx) => {
    const following = await trx
      .selectFrom("follows")
      .select("id")
      .where("account_id", "=", accountId)
      .where("target_account_id", "=", targetId)
      .executeTakeFirst();
    if (!following)
      throw unprocessable("Validation failed: You must be already following the person you want to endorse");
    await trx
      .insertInto("account_pins")
      .values({ id: newId(), account_id: accountId, target_account_id: targetId, created_at: new Date() })
      .onConflict((oc) => oc.columns(["account_id", "target_account_id"]).doNothing())
      .execute();
  });
}

export async function unendorse(rt: Runtime, accountId: string, targetId: string): Promise<void> {
  await requireAccount(rt.db, targetId);
  await rt.db
    .deleteFrom("account_pins")
    .where("account_id", "=", accountId)
    .where("target_account_id", "=", targetId)
    .execute();
}

/**
 * Accounts `accountId` features, newest first; suspended ones left out. Nothing for a suspended
 * account; 404 for none. A page of limit 0 is all of them (Mastodon's `limit=0`).
 */
export async function listEndorsements(rt: Runtime, accountId: string, page: Page): Promise<AccountPage> {
  const owner = isId(accountId)
    ? await rt.db.selectFrom("accounts").select("suspended_at").where("id", "=", accountId).executeTakeFirst()
    : undefined;
  if (!owner) throw notFound();
  if (owner.suspended_at !== null) return { items: [], next: null, prev: null };
  const q = rt.db
    .selectFrom("account_pins as p")
    .innerJoin("accounts as a", "a.id", "p.target_account_id")
    .select(["p.id", "p.target_account_id as account_id"])
    .where("p.account_id", "=", accountId)
    .where("a.suspended_at", "is", null);
  if (page.limit === 0) return { items: await q.orderBy("p.id", "desc").execute(), next: null, prev: null };
  return paginate(q, "p.id", page);
}
