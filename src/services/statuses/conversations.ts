// Direct conversations (/api/v1/conversations): for each participant, the direct statuses of one
// thread among one set of people, the latest of them, and an unread flag. The author's copy is
// written when a direct status is posted; each recipient's when their mention notification is
// (so blocks, mutes and the notification policy apply to conversations as well). Mastodon's
// AccountConversation.
import { sql } from "kysely";
import type { Db } from "../../db/index.ts";
import { type Page, type PageResult, paginate } from "../../db/paginate.ts";
import { notFound } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import { type AccountView, loadAccountViews } from "../accounts/views.ts";
import { viewerValue, visibleStatusId } from "../visibility/sql.ts";
import { loadStatusViews, type StatusView } from "./views.ts";

export interface ConversationRow {
  id: string;
  participants: string;
  last_status_id: string;
  unread: boolean;
}

const byId = (a: string, b: string) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0);

/** Everyone on a status (its author and the accounts it mentions) but `recipientId`, as a key. */
async function participantsKey(db: Db, status: { id: string; accountId: string }, recipientId: string) {
  const mentions = await db
    .selectFrom("status_mentions")
    .select("account_id")
    .where("status_id", "=", status.id)
    .where("silent", "=", false)
    .execute();
  const ids = new Set([status.accountId, ...mentions.map((m) => m.account_id)]);
  ids.delete(recipientId);
  return [...ids].sort(byId).join(" ");
}

interface DirectStatus {
  id: string;
  accountId: string;
  conversationId: string;
}

/** Adds a direct status to `recipientId`'s conversation; it is unread unless they wrote it. */
export async function addToConversation(db: Db, recipientId: string, status: DirectStatus): Promise<void> {
  const participants = await participantsKey(db, status, recipientId);
  const unread = status.accountId !== recipientId;
  const find = () =>
    db
      .selectFrom("account_conversations")
      .select(["id", "status_ids"])
      .where("account_id", "=", recipientId)
      .where("conversation_id", "=", status.conversationId)
      .where("participants", "=", participants)
      .executeTakeFirst();
  let row = await find();
  if (!row) {
    const inserted = await db
      .insertInto("account_conversations")
      .values({
        id: newId(),
        account_id: recipientId,
        conversation_id: status.conversationId,
        participants,
        status_ids: JSON.stringify([status.id]),
        last_status_id: status.id,
        unread,
      })
      .onConflict((oc) => oc.columns(["account_id", "conversation_id", "participants"]).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) return;
    row = await find();
    if (!row) return;
  }
  if (row.status_ids.includes(status.id)) return;
  const statusIds = [...row.status_ids, status.id].sort(byId);
  await db
    .updateTable("account_conversations")
    .set({ status_ids: JSON.stringify(statusIds), last_status_id: statusIds[statusIds.length - 1], unread })
    .where("id", "=", row.id)
    .execute();
}

/** Takes a deleted status out of every conversation holding it; an emptied conversation goes. */
export async function removeFromConversations(db: Db, statusId: string): Promise<void> {
  const status = await db
    .selectFrom("statuses")
    .select("conversation_id")
    .where("id", "=", statusId)
    .where("visibility", "=", "direct")
    .executeTakeFirst();
  if (!status?.conversation_id) return;
  const rows = await db
    .selectFrom("account_conversations")
    .select(["id", "status_ids"])
    .where("conversation_id", "=", status.conversation_id)
    .execute();
  for (const row of rows.filter((r) => r.status_ids.includes(statusId))) {
    const statusIds = row.status_ids.filter((id) => id !== statusId);
    if (statusIds.length === 0) {
      await db.deleteFrom("account_conversations").where("id", "=", row.id).execute();
    } else {
      await db
        .updateTable("account_conversations")
        .set({ status_ids: JSON.stringify(statusIds), last_status_id: statusIds[statusIds.length - 1] })
        .where("id", "=", row.id)
        .execute();
    }
  }
}

/** Adds a direct status to the conversations of the recipients its mention notifications reached. */
export async function deliverToRecipients(db: Db, status: DirectStatus, recipientIds: string[]): Promise<void> {
  if (recipientIds.length === 0) return;
  const reached = await db
    .selectFrom("notifications")
    .select("account_id")
    .where("status_id", "=", status.id)
    .where("type", "=", "mention")
    .where("filtered", "=", false)
    .where("account_id", "in", recipientIds)
    .execute();
  for (const { account_id } of reached) await addToConversation(db, account_id, status);
}

/**
 * The caller's conversations, the one with the newest status first, paged by that status; only those
 * whose last status the caller may see now.
 */
export function listConversations(rt: Runtime, accountId: string, page: Page): Promise<PageResult<ConversationRow>> {
  return paginate(shownConversations(rt, accountId), "last_status_id", page, (row) => row.last_status_id);
}

function shownConversations(rt: Runtime, accountId: string) {
  return rt.db
    .selectFrom("account_conversations")
    .select(["id", "participants", "last_status_id", "unread"])
    .where("account_id", "=", accountId)
    .where(visibleStatusId(viewerValue(accountId), sql.ref("last_status_id")));
}

/** The caller's conversation whose last status is `statusId`, as listConversations shows it, if any. */
export function conversationEndingWith(rt: Runtime, accountId: string, statusId: string) {
  return shownConversations(rt, accountId).where("last_status_id", "=", statusId).executeTakeFirst();
}

export async function markRead(rt: Runtime, accountId: string, id: string): Promise<ConversationRow> {
  const row = await rt.db
    .updateTable("account_conversations")
    .set({ unread: false })
    .where("id", "=", id)
    .where("account_id", "=", accountId)
    .returning(["id", "participants", "last_status_id", "unread"])
    .executeTakeFirst();
  if (!row) throw notFound();
  return row;
}

/** Removes a conversation from the caller's list; a new message in it brings it back. */
export async function removeConversation(rt: Runtime, accountId: string, id: string): Promise<void> {
  const result = await rt.db
    .deleteFrom("account_conversations")
    .where("id", "=", id)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) throw notFound();
}

export interface ConversationViews {
  /** Each row's participants: the others, or the viewer alone, writing to themself. */
  participants: string[][];
  accounts: Map<string, AccountView>;
  statuses: Map<string, StatusView>;
}

/** What the Conversation entities of `rows` are rendered from, in batches. */
export async function loadConversationViews(
  rt: Runtime,
  viewerId: string,
  rows: ConversationRow[],
): Promise<ConversationViews> {
  const participants = rows.map((r) => (r.participants ? r.participants.split(" ") : [viewerId]));
  const [accounts, statuses] = await Promise.all([
    loadAccountViews(rt, [...new Set(participants.flat())]),
    loadStatusViews(
      rt,
      viewerId,
      rows.map((r) => r.last_status_id),
    ),
  ]);
  return { participants, accounts, statuses: new Map(statuses.map((v) => [v.shared.row.id, v])) };
}
