// The pins of other servers' accounts, as their servers tell them: an `Add` or `Remove` aimed at the
// account's featured collection, or the collection itself, read when the account is first seen.
// Only the account's own statuses (not boosts, not deleted) are pinned, at most REMOTE_PINS_MAX of
// them; every call leaves things as they are when its work is done already.

import { newId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";

/** More than any server lets its users pin: a server cannot fill an account's profile with pins. */
export const REMOTE_PINS_MAX = 40;

/** Those of `statusIds` that `accountId` may pin, in the order given. */
async function ownStatuses(rt: Runtime, accountId: string, statusIds: string[]): Promise<string[]> {
  if (statusIds.length === 0) return [];
  const rows = await rt.db
    .selectFrom("statuses")
    .select("id")
    .where("id", "in", statusIds)
    .where("account_id", "=", accountId)
    .where("reblog_of_id", "is", null)
    .where("deleted_at", "is", null)
    .execute();
  const own = new Set(rows.map((r) => r.id));
  return statusIds.filter((id) => own.has(id));
}

/** Pins the remote account's status (an Add to its featured collection). */
export async function addRemotePin(rt: Runtime, accountId: string, statusId: string): Promise<void> {
  if ((await ownStatuses(rt, accountId, [statusId])).length === 0) return;
  await rt.db.transaction().execute(async (trx) => {
    const pins = await trx.selectFrom("status_pins").select("status_id").where("account_id", "=", accountId).execute();
    if (pins.length >= REMOTE_PINS_MAX || pins.some((p) => p.status_id === statusId)) return;
    await trx
      .insertInto("status_pins")
      .values({ id: newId(), account_id: accountId, status_id: statusId, created_at: new Date() })
      .onConflict((oc) => oc.columns(["account_id", "status_id"]).doNothing())
      .execute();
  });
}

/** Unpins the remote account's status (a Remove from its featured collection). */
export async function removeRemotePin(rt: Runtime, accountId: string, statusId: string): Promise<void> {
  await rt.db.deleteFrom("status_pins").where("account_id", "=", accountId).where("status_id", "=", statusId).execute();
}

/**
 * The remote account's pins made what its featured collection lists (`statusIds`, first pinned
 * shown first): those no longer listed unpinned, the new ones pinned.
 */
export async function replaceRemotePins(rt: Runtime, accountId: string, statusIds: string[]): Promise<void> {
  const wanted = (await ownStatuses(rt, accountId, [...new Set(statusIds)])).slice(0, REMOTE_PINS_MAX);
  await rt.db.transaction().execute(async (trx) => {
    const pins = await trx.selectFrom("status_pins").select("status_id").where("account_id", "=", accountId).execute();
    const kept = new Set(pins.map((p) => p.status_id));
    const gone = [...kept].filter((id) => !wanted.includes(id));
    if (gone.length > 0) {
      await trx.deleteFrom("status_pins").where("account_id", "=", accountId).where("status_id", "in", gone).execute();
    }
    // Pinned in reverse, so that the collection's first item is the most recently pinned, as it is listed.
    const created_at = new Date();
    for (const statusId of [...wanted].reverse()) {
      if (kept.has(statusId)) continue;
      await trx
        .insertInto("status_pins")
        .values({ id: newId(), account_id: accountId, status_id: statusId, created_at })
        .onConflict((oc) => oc.columns(["account_id", "status_id"]).doNothing())
        .execute();
    }
  });
}
