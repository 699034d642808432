// Blocking an account: it ends every follow and follow request between the two, either way, and
// keeps them apart until unblocked. Mastodon's BlockService and UnblockService.
import { type AccountPage, type Page, paginate } from "../../db/paginate.ts";
import { newId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import { federate } from "../federation/outbox.ts";
import { blocksChanged } from "../visibility/blocks_involved.ts";
import { deleteFollow, deleteFollowRequest } from "./follow_graph.ts";
import { requireAccount } from "./targets.ts";

/** Blocks `targetId`. Blocking oneself does nothing, as in Mastodon. */
export async function block(rt: Runtime, accountId: string, targetId: string): Promise<void> {
  await requireAccount(rt.db, targetId);
  if (accountId === targetId) return;
  await rt.db.transaction().execute(async (trx) => {
    for (const pair of [
      { sourceId: accountId, targetId },
      { sourceId: targetId, targetId: accountId },
    ]) {
      await deleteFollow(rt, trx, pair);
      await deleteFollowRequest(trx, pair);
      // Neither sees the other's posts, nor boosts of them, in the home feed any more.
      await rt.queue.enqueue(
        "feeds.unmerge",
        { feedId: pair.sourceId, authorId: pair.targetId, boosts: true },
        {},
        trx,
      );
    }
    await trx
      .insertInto("blocks")
      .values({ id: newId(), account_id: accountId, target_account_id: targetId, uri: null, created_at: new Date() })
      .onConflict((oc) => oc.columns(["account_id", "target_account_id"]).doNothing())
      .execute();
    await federate(rt, trx, accountId, { type: "Block", accountId, targetId }, [targetId]);
  });
  await blocksChanged(rt);
}

export async function unblock(rt: Runtime, accountId: string, targetId: string): Promise<void> {
  await requireAccount(rt.db, targetId);
  await rt.db.transaction().execute(async (trx) => {
    const removed = await trx
      .deleteFrom("blocks")
      .where("account_id", "=", accountId)
      .where("target_account_id", "=", targetId)
      .executeTakeFirst();
    if (Number(removed.numDeletedRows) === 0) return;
    await federate(rt, trx, accountId, { type: "UndoBlock", accountId, targetId }, [targetId]);
  });
}

/** Accounts `accountId` blocks, newest block first; suspended ones are left out. */
export function listBlocks(rt: Runtime, accountId: string, page: Page): Promise<AccountPage> {
  const q = rt.db
    .selectFrom("blocks as b")
    .innerJoin("accounts as a", "a.id", "b.target_account_id")
    .select(["b.id", "b.target_account_id as account_id"])
    .where("b.account_id", "=", accountId)
    .where("a.suspended_at", "is", null);
  return paginate(q, "b.id", page);
}
