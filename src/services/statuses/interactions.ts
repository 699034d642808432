// What people do to statuses: favourite, boost, bookmark, pin, mute the conversation. Every action
// starts from a status the caller may see, and answers 404 for any other, existing or not.
import { sql } from "kysely";
import { lockRow } from "../../db/concurrency.ts";
import type { Db } from "../../db/index.ts";
import { type Page, type PageResult, paginate } from "../../db/paginate.ts";
import type { Visibility } from "../../db/schema.ts";
import { forbidden, unprocessable } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import { urls } from "../../domain/urls.ts";
import type { Runtime } from "../../runtime.ts";
import { publishEvent } from "../../streaming/events.ts";
import { federate } from "../federation/outbox.ts";
import { hiddenAccountIds } from "../relationships/hidden_accounts.ts";
import { loadStatusRows, type StatusRow, visibleStatus } from "../visibility/load.ts";
import { canReblog } from "../visibility/rule.ts";
import { viewerValue, visibleStatusId } from "../visibility/sql.ts";
import { reblogged, statusFavourited, unfavourited, unreblogged } from "./side_effects.ts";

/** The status an action applies to: the boosted one when given a boost. */
async function target(rt: Runtime, viewerId: string | null, id: string): Promise<StatusRow> {
  const row = await visibleStatus(rt, viewerId, id);
  if (!row.reblog_of_id) return row;
  return (await loadStatusRows(rt.db, [row.reblog_of_id])).get(row.reblog_of_id)!;
}

/** The viewer's boost of a status, while it stands. */
function ownBoost(db: Db, viewerId: string, statusId: string) {
  return db
    .selectFrom("statuses")
    .select(["id", "uri"])
    .where("account_id", "=", viewerId)
    .where("reblog_of_id", "=", statusId)
    .where("deleted_at", "is", null)
    .executeTakeFirst();
}

export async function favourite(rt: Runtime, viewerId: string, id: string): Promise<string> {
  const status = await target(rt, viewerId, id);
  await rt.db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto("favourites")
      .values({ id: newId(), account_id: viewerId, status_id: status.id, created_at: new Date() })
      .onConflict((oc) => oc.columns(["account_id", "status_id"]).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return;
    await trx
      .updateTable("status_stats")
      .set({ favourites_count: sql`favourites_count + 1` })
      .where("status_id", "=", status.id)
      .execute();
    await statusFavourited(rt, trx, { statusId: status.id, authorId: status.account_id, by: viewerId });
    await federate(rt, trx, viewerId, { type: "Like", accountId: viewerId, statusId: status.id }, [status.account_id]);
  });
  return status.id;
}

export async function unfavourite(rt: Runtime, viewerId: string, id: string): Promise<string> {
  const status = await target(rt, viewerId, id);
  await rt.db.transaction().execute(async (trx) => {
    const removed = await trx
      .deleteFrom("favourites")
      .where("account_id", "=", viewerId)
      .where("status_id", "=", status.id)
      .executeTakeFirst();
    if (Number(removed.numDeletedRows) === 0) return;
    await trx
      .updateTable("status_stats")
      .set({ favourites_count: sql`CASE WHEN favourites_count > 0 THEN favourites_count - 1 ELSE 0 END` })
      .where("status_id", "=", status.id)
      .execute();
    await unfavourited(trx, { statusId: status.id, authorId: status.account_id, by: viewerId });
    await federate(rt, trx, viewerId, { type: "UndoLike", accountId: viewerId, statusId: status.id }, [
      status.account_id,
    ]);
  });
  return status.id;
}

const BOOST_VISIBILITIES: Visibility[] = ["public", "unlisted", "private"];

/** Boosts a status; returns the boost's id (the existing one when boosted before). */
export async function reblog(
  rt: Runtime,
  viewerId: string,
  id: string,
  visibility: string | undefined,
  /** The Announce's id, for a boost made on another server. */
  remoteUri?: string,
): Promise<string> {
  const status = await target(rt, viewerId, id);
  if (!canReblog(status, viewerId)) throw forbidden();
  if (visibility !== undefined && !BOOST_VISIBILITIES.includes(visibility as Visibility)) {
    throw unprocessable("Validation failed: Visibility is not included in the list");
  }
  const existing = await ownBoost(rt.db, viewerId, status.id);
  if (existing) return existing.id;
  const me = await rt.db.selectFrom("accounts").select("username").where("id", "=", viewerId).executeTakeFirstOrThrow();
  // A private status stays private when its author boosts it.
  const chosen: Visibility =
    status.visibility === "private" ? "private" : ((visibility as Visibility | undefined) ?? "public");
  const boostId = newId();
  const now = new Date();
  const u = urls(rt.config);
  return rt.db.transaction().execute(async (trx) => {
    // Boosts of one status at once by one account: the second finds the first's, as it would later.
    await lockRow(trx, rt.dialect, "accounts", viewerId);
    const boosted = await ownBoost(trx, viewerId, status.id);
    if (boosted) return boosted.id;
    await trx
      .insertInto("statuses")
      .values({
        id: boostId,
        uri: remoteUri ?? `${u.statusUri(me.username, boostId)}/activity`,
        url: null,
        account_id: viewerId,
        local: remoteUri === undefined,
        visibility: chosen,
        language: null,
        in_reply_to_id: null,
        in_reply_to_account_id: null,
        reblog_of_id: status.id,
        conversation_id: null,
        application_id: null,
        created_at: now,
        updated_at: now,
        edited_at: null,
        deleted_at: null,
      })
      .execute();
    await trx.insertInto("status_stats").values({ status_id: boostId }).execute();
    await trx
      .updateTable("status_stats")
      .set({ reblogs_count: sql`reblogs_count + 1` })
      .where("status_id", "=", status.id)
      .execute();
    await trx
      .updateTable("account_stats")
      .set({ statuses_count: sql`statuses_count + 1`, last_status_at: now })
      .where("account_id", "=", viewerId)
      .execute();
    await reblogged(rt, trx, { boostId, statusId: status.id, authorId: status.account_id, by: viewerId });
    await federate(rt, trx, viewerId, { type: "Announce", boostId }, [status.account_id]);
    return boostId;
  });
}

/** Withdraws one's boost; returns the boosted status's id. */
export async function unreblog(rt: Runtime, viewerId: string, id: string): Promise<string> {
  const status = await target(rt, viewerId, id);
  const boostId = await rt.db.transaction().execute(async (trx) => {
    const boost = await ownBoost(trx, viewerId, status.id);
    if (!boost) return null;
    await trx.deleteFrom("statuses").where("id", "=", boost.id).execute();
    await trx
      .updateTable("status_stats")
      .set({ reblogs_count: sql`CASE WHEN reblogs_count > 0 THEN reblogs_count - 1 ELSE 0 END` })
      .where("status_id", "=", status.id)
      .execute();
    await trx
      .updateTable("account_stats")
      .set({ statuses_count: sql`statuses_count - 1` })
      .where("account_id", "=", viewerId)
      .execute();
    await unreblogged(rt, trx, { boostId: boost.id, statusId: status.id, authorId: status.account_id, by: viewerId });
    const undo = { type: "UndoAnnounce", accountId: viewerId, boostUri: boost.uri, statusId: status.id } as const;
    await federate(rt, trx, viewerId, undo, [status.account_id]);
    return boost.id;
  });
  if (boostId) await publishEvent(rt, "statuses.changed", { ids: [boostId] });
  return status.id;
}

export async function bookmark(rt: Runtime, viewerId: string, id: string): Promise<string> {
  const status = await target(rt, viewerId, id);
  await rt.db
    .insertInto("bookmarks")
    .values({ id: newId(), account_id: viewerId, status_id: status.id, created_at: new Date() })
    .onConflict((oc) => oc.columns(["account_id", "status_id"]).doNothing())
    .execute();
  return status.id;
}

export async function unbookmark(rt: Runtime, viewerId: string, id: string): Promise<string> {
  const status = await target(rt, viewerId, id);
  await rt.db.deleteFrom("bookmarks").where("account_id", "=", viewerId).where("status_id", "=", status.id).execute();
  return status.id;
}

export async function pin(rt: Runtime, viewerId: string, id: string): Promise<string> {
  const status = await visibleStatus(rt, viewerId, id);
  if (status.reblog_of_id) throw unprocessable("Validation failed: A boost cannot be pinned");
  if (status.account_id !== viewerId) throw unprocessable("Validation failed: Someone else's post cannot be pinned");
  if (status.visibility === "private" || status.visibility === "direct") {
    throw unprocessable("Validation failed: Only public and unlisted posts can be pinned");
  }
  const taken = () => unprocessable("Validation failed: Status has already been taken");
  await rt.db.transaction().execute(async (trx) => {
    // Pins of one account at once are counted one after the other, so that the limit holds.
    await lockRow(trx, rt.dialect, "accounts", viewerId);
    const pins = await trx.selectFrom("status_pins").select("status_id").where("account_id", "=", viewerId).execute();
    if (pins.some((p) => p.status_id === id)) throw taken();
    if (pins.length >= rt.config.limits.pinnedStatuses) {
      throw unprocessable("Validation failed: You have already pinned the maximum number of posts");
    }
    const inserted = await trx
      .insertInto("status_pins")
      .values({ id: newId(), account_id: viewerId, status_id: id, created_at: new Date() })
      .onConflict((oc) => oc.columns(["account_id", "status_id"]).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) throw taken();
    await federate(rt, trx, viewerId, { type: "Add", accountId: viewerId, statusId: id });
  });
  return id;
}

export async function unpin(rt: Runtime, viewerId: string, id: string): Promise<string> {
  const status = await visibleStatus(rt, viewerId, id);
  await rt.db.transaction().execute(async (trx) => {
    const removed = await trx
      .deleteFrom("status_pins")
      .where("account_id", "=", viewerId)
      .where("status_id", "=", status.id)
      .executeTakeFirst();
    if (Number(removed.numDeletedRows) > 0) {
      await federate(rt, trx, viewerId, { type: "Remove", accountId: viewerId, statusId: status.id });
    }
  });
  return status.id;
}

/** Muting a conversation silences notifications from the whole thread. */
export async function muteConversation(rt: Runtime, viewerId: string, id: string, mute: boolean): Promise<string> {
  const status = await target(rt, viewerId, id);
  const conversation = status.conversation_id ?? status.id;
  if (mute) {
    await rt.db
      .insertInto("conversation_mutes")
      .values({ id: newId(), account_id: viewerId, conversation_id: conversation })
      .onConflict((oc) => oc.columns(["account_id", "conversation_id"]).doNothing())
      .execute();
  } else {
    await rt.db
      .deleteFrom("conversation_mutes")
      .where("account_id", "=", viewerId)
      .where("conversation_id", "=", conversation)
      .execute();
  }
  return status.id;
}

/** Who favourited or boosted a status, newest first, leaving out accounts hidden from the viewer. */
export async function interactedBy(
  rt: Runtime,
  viewerId: string | null,
  id: string,
  kind: "favourites" | "reblogs",
  page: Page,
): Promise<PageResult<{ id: string; account_id: string }>> {
  const status = await target(rt, viewerId, id);
  let q =
    kind === "favourites"
      ? rt.db.selectFrom("favourites as x").select(["x.id", "x.account_id"]).where("x.status_id", "=", status.id)
      : rt.db
          .selectFrom("statuses as x")
          .select(["x.id", "x.account_id"])
          .where("x.reblog_of_id", "=", status.id)
          .where("x.deleted_at", "is", null);
  q = q.where(
    "x.account_id",
    "not in",
    rt.db.selectFrom("accounts").select("id").where("suspended_at", "is not", null),
  );
  if (viewerId) q = q.where("x.account_id", "not in", hiddenAccountIds(rt.db, viewerId));
  return paginate(q, "x.id", page);
}

/** The viewer's bookmarks or favourites, by when they were made, still visible to them. */
export async function savedStatuses(
  rt: Runtime,
  viewerId: string,
  table: "bookmarks" | "favourites",
  page: Page,
): Promise<PageResult<string>> {
  const result = await paginate(
    rt.db
      .selectFrom(`${table} as x`)
      .select(["x.id", "x.status_id"])
      .where("x.account_id", "=", viewerId)
      .where(visibleStatusId(viewerValue(viewerId), sql.ref("x.status_id"))),
    "x.id",
    page,
  );
  return { ...result, items: result.items.map((r) => r.status_id) };
}
