// Notification requests: the notifications a policy filtered, collected per sender, until the person
// accepts the sender (their notifications join the others, later ones are never filtered) or
// dismisses them (the filtered notifications go). Mastodon's NotificationRequest.
import { sql } from "kysely";
import type { Db } from "../../db/index.ts";
import { type Page, type PageResult, paginate } from "../../db/paginate.ts";
import { notFound } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import { publishEvent } from "../../streaming/events.ts";
import { addToConversation } from "../statuses/conversations.ts";

export interface NotificationRequestRow {
  id: string;
  from_account_id: string;
  last_status_id: string | null;
  notifications_count: number;
  created_at: Date;
  updated_at: Date;
}

/** Opens the sender's request, or brings it up to date, when a notification from them is filtered. */
export async function recordFilteredNotification(
  db: Db,
  n: { recipientId: string; fromAccountId: string; statusId: string | null; at: Date },
): Promise<void> {
  const refresh = n.statusId ? { updated_at: n.at, last_status_id: n.statusId } : { updated_at: n.at };
  await db
    .insertInto("notification_requests")
    .values({
      id: newId(),
      account_id: n.recipientId,
      from_account_id: n.fromAccountId,
      last_status_id: n.statusId,
      created_at: n.at,
      updated_at: n.at,
    })
    .onConflict((oc) => oc.columns(["account_id", "from_account_id"]).doUpdateSet(refresh))
    .execute();
}

function requests(db: Db, accountId: string) {
  return db
    .selectFrom("notification_requests as r")
    .innerJoin("accounts as a", "a.id", "r.from_account_id")
    .select((eb) => [
      "r.id",
      "r.from_account_id",
      "r.last_status_id",
      "r.created_at",
      "r.updated_at",
      eb
        .selectFrom("notifications as n")
        .select(sql<number>`count(*)`.as("c"))
        .where("n.account_id", "=", accountId)
        .whereRef("n.from_account_id", "=", "r.from_account_id")
        .where("n.filtered", "=", true)
        .as("notifications_count"),
    ])
    .where("r.account_id", "=", accountId)
    .where("a.suspended_at", "is", null);
}

const counted = (
  row: { notifications_count: number | null } & Omit<NotificationRequestRow, "notifications_count">,
) => ({
  ...row,
  notifications_count: Number(row.notifications_count ?? 0),
});

export async function listRequests(
  rt: Runtime,
  accountId: string,
  page: Page,
): Promise<PageResult<NotificationRequestRow>> {
  const result = await paginate(requests(rt.db, accountId), "r.id", page);
  return { ...result, items: result.items.map(counted) };
}

export async function getRequest(rt: Runtime, accountId: string, id: string): Promise<NotificationRequestRow> {
  const row = await requests(rt.db, accountId).where("r.id", "=", id).executeTakeFirst();
  if (!row) throw notFound();
  return counted(row);
}

/** The senders behind the given requests of `accountId`; unknown or foreign ids are skipped. */
async function sendersOf(db: Db, accountId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom("notification_requests")
    .select("from_account_id")
    .where("account_id", "=", accountId)
    .where("id", "in", ids)
    .execute();
  return rows.map((r) => r.from_account_id);
}

/** Accepts requests: their notifications are no longer filtered, nor will the senders' next ones be. */
export async function acceptRequests(rt: Runtime, accountId: string, ids: string[]): Promise<number> {
  const accepted = await rt.db.transaction().execute(async (trx) => {
    const senders = await sendersOf(trx, accountId, ids);
    if (senders.length === 0) return 0;
    const now = new Date();
    // Private mentions held back join the conversations, as if they had just arrived.
    const directMentions = await trx
      .selectFrom("notifications as n")
      .innerJoin("statuses as s", "s.id", "n.status_id")
      .select(["s.id", "s.account_id", "s.conversation_id"])
      .where("n.account_id", "=", accountId)
      .where("n.from_account_id", "in", senders)
      .where("n.filtered", "=", true)
      .where("n.type", "=", "mention")
      .where("s.visibility", "=", "direct")
      .orderBy("s.id")
      .execute();
    await trx
      .insertInto("notification_permissions")
      .values(senders.map((from) => ({ account_id: accountId, from_account_id: from, created_at: now })))
      .onConflict((oc) => oc.columns(["account_id", "from_account_id"]).doNothing())
      .execute();
    await trx
      .updateTable("notifications")
      .set({ filtered: false })
      .where("account_id", "=", accountId)
      .where("from_account_id", "in", senders)
      .where("filtered", "=", true)
      .execute();
    for (const s of directMentions) {
      await addToConversation(trx, accountId, {
        id: s.id,
        accountId: s.account_id,
        conversationId: s.conversation_id ?? s.id,
      });
    }
    await removeRequests(trx, accountId, senders);
    return senders.length;
  });
  if (accepted > 0) await publishEvent(rt, "notifications.merged", { accountId });
  return accepted;
}

/** Dismisses requests, and the notifications they held with them. */
export async function dismissRequests(rt: Runtime, accountId: string, ids: string[]): Promise<number> {
  return rt.db.transaction().execute(async (trx) => {
    const senders = await sendersOf(trx, accountId, ids);
    if (senders.length === 0) return 0;
    await trx
      .deleteFrom("notifications")
      .where("account_id", "=", accountId)
      .where("from_account_id", "in", senders)
      .where("filtered", "=", true)
      .execute();
    await removeRequests(trx, accountId, senders);
    return senders.length;
  });
}

async function removeRequests(db: Db, accountId: string, senders: string[]): Promise<void> {
  await db
    .deleteFrom("notification_requests")
    .where("account_id", "=", accountId)
    .where("from_account_id", "in", senders)
    .execute();
}

/** The policy's summary: pending requests, and the filtered notifications they hold. */
export async function requestsSummary(rt: Runtime, accountId: string) {
  const row = await rt.db
    .selectFrom("notification_requests as r")
    .innerJoin("accounts as a", "a.id", "r.from_account_id")
    .select((eb) => [
      sql<number>`count(*)`.as("requests"),
      eb
        .selectFrom("notifications as n")
        .innerJoin("accounts as s", "s.id", "n.from_account_id")
        .select(sql<number>`count(*)`.as("c"))
        .where("n.account_id", "=", accountId)
        .where("n.filtered", "=", true)
        .where("s.suspended_at", "is", null)
        .as("notifications"),
    ])
    .where("r.account_id", "=", accountId)
    .where("a.suspended_at", "is", null)
    .executeTakeFirstOrThrow();
  return { pending_requests_count: Number(row.requests), pending_notifications_count: Number(row.notifications ?? 0) };
}
