// Deleting a status: it disappears from every read path, its boosts with it. The row stays (soft
// delete) so that reports can still show it to moderators.
import { sql } from "kysely";
import type { Runtime } from "../../runtime.ts";
import { publishEvent } from "../../streaming/events.ts";
import { federate } from "../federation/outbox.ts";
import { releaseStatusMedia } from "../media/cleanup.ts";
import type { MediaRow } from "../media/rows.ts";
import { removeMediaRows } from "../media/upload.ts";
import { ownStatus } from "./edit.ts";
import { statusDeleted } from "./side_effects.ts";

/**
 * `deleteMedia` (Mastodon 4.4's `delete_media`) removes the status's media (and those of its earlier
 * versions) at once; otherwise they are let go for a day, for redrafting.
 */
export async function deleteStatus(
  rt: Runtime,
  accountId: string,
  id: string,
  options: { deleteMedia?: boolean } = {},
): Promise<void> {
  const row = await ownStatus(rt, accountId, id);
  const now = new Date();
  let media: MediaRow[] = [];
  const gone = await rt.db.transaction().execute(async (trx) => {
    await trx.updateTable("statuses").set({ deleted_at: now, updated_at: now }).where("id", "=", id).execute();
    // Media kept on a deleted status are what the cleanup job would remove, should this stop halfway.
    if (options.deleteMedia)
      media = await trx.selectFrom("media_attachments").selectAll().where("status_id", "=", id).execute();
    else await releaseStatusMedia(trx, id, now);
    await trx
      .updateTable("account_stats")
      .set({ statuses_count: sql`statuses_count - 1` })
      .where("account_id", "=", accountId)
      .execute();
    if (row.in_reply_to_id) {
      await trx
        .updateTable("status_stats")
        .set({ replies_count: sql`CASE WHEN replies_count > 0 THEN replies_count - 1 ELSE 0 END` })
        .where("status_id", "=", row.in_reply_to_id)
        .execute();
    }
    const boosts = await trx
      .selectFrom("statuses")
      .select(["id", "account_id"])
      .where("reblog_of_id", "=", id)
      .execute();
    for (const boost of boosts) {
      await trx
        .updateTable("account_stats")
        .set({ statuses_count: sql`statuses_count - 1` })
        .where("account_id", "=", boost.account_id)
        .execute();
    }
    if (boosts.length > 0) await trx.deleteFrom("statuses").where("reblog_of_id", "=", id).execute();
    await statusDeleted(rt, trx, { id, boostIds: boosts.map((b) => b.id) });
    await federate(
      rt,
      trx,
      accountId,
      { type: "Delete", statusId: id },
      row.in_reply_to_account_id ? [row.in_reply_to_account_id] : [],
    );
    return [id, ...boosts.map((b) => b.id)];
  });
  await publishEvent(rt, "statuses.changed", { ids: gone });
  await publishEvent(rt, "statuses.deleted", { ids: gone, public: row.visibility === "public" });
  await removeMediaRows(rt, media);
}
