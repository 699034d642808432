// What follows from posting, editing, deleting, favouriting and boosting: notification records of
// one recipient and the search index written in the same transaction as the change, and jobs for
// the rest (mentions, conversations, subscribers, boosters, feeds).
import type { Db, Dialect } from "../../db/index.ts";
import type { Visibility } from "../../db/schema.ts";
import { linkToPreview } from "../../domain/link_cards/links.ts";
import type { JobPayloads } from "../../jobs/queue.ts";
import type { Runtime } from "../../runtime.ts";
import { publishEvent } from "../../streaming/events.ts";
import { fanOutNow, subscribersExist } from "../feeds/fanout.ts";
import { type NotificationType, notify } from "../notifications/create.ts";
import { indexStatus, unindexStatus } from "../search/status_index.ts";
import { addToConversation, deliverToRecipients, removeFromConversations } from "./conversations.ts";

declare module "../../jobs/queue.ts" {
  interface JobPayloads {
    /**
     * `mention` notifications for the accounts a status mentions; a new direct status also joins the
     * conversations of its author and of the recipients the notification reached.
     */
    "statuses.notify_mentioned": { statusId: string; mentioned: string[]; created: boolean };
    /** `status` notifications for the followers who asked to hear of every post. */
    "statuses.notify_subscribers": { statusId: string };
    /** `update` notifications for the people who boosted an edited status, `quoted_update` for those who quoted it. */
    "statuses.notify_boosters": { statusId: string };
  }
}

/** Whether the recipient muted the thread the status belongs to: then it does not notify them. */
async function threadMuted(db: Db, recipientId: string, statusId: string): Promise<boolean> {
  const row = await db
    .selectFrom("statuses as s")
    .innerJoin("conversation_mutes as m", "m.conversation_id", "s.conversation_id")
    .select("m.id")
    .where("s.id", "=", statusId)
    .where("m.account_id", "=", recipientId)
    .executeTakeFirst();
  return row !== undefined;
}

async function notifyAbout(
  rt: Runtime,
  db: Db,
  input: { recipientId: string; fromAccountId: string; type: NotificationType; statusId: string },
): Promise<void> {
  if (await threadMuted(db, input.recipientId, input.statusId)) return;
  await notify(rt, db, input);
}

/** Whether any follower of the account asked to hear of its every post. */
async function hasSubscribers(db: Db, dialect: Dialect, accountId: string): Promise<boolean> {
  const row = await db.selectNoFrom(subscribersExist(dialect, accountId).as("yes")).executeTakeFirstOrThrow();
  // SQLite answers 0 or 1.
  return Boolean(row.yes);
}

/**
 * Returns what to do once the transaction commits. A local status is fanned out by a job (the
 * request that posts it should not wait); another server's, which arrives in a job, at once.
 */
export async function statusPosted(
  rt: Runtime,
  db: Db,
  s: {
    id: string;
    accountId: string;
    local: boolean;
    mentioned: string[];
    visibility: Visibility;
    tags: string[];
    content: string;
  },
): Promise<() => Promise<void>> {
  // Most statuses link nothing but mentions and hashtags: a job that would find no link is not made.
  if (linkToPreview(s.content, { mentionUrls: [], ownUrls: [], origin: rt.config.origin })) {
    await rt.queue.enqueue("cards.fetch", { statusId: s.id }, {}, db);
  }
  if (s.mentioned.length > 0 || s.visibility === "direct") {
    await rt.queue.enqueue(
      "statuses.notify_mentioned",
      { statusId: s.id, mentioned: s.mentioned, created: true },
      {},
      db,
    );
  }
  // Most accounts have no such followers: a job that would find none is not made. Another server's
  // status learns of them from its fan-out's statement, one read of the author's follows fewer.
  if (!s.local) {
    const { tell, subscribed } = await fanOutNow(rt, db, s);
    if (subscribed) await rt.queue.enqueue("statuses.notify_subscribers", { statusId: s.id }, {}, db);
    return tell;
  }
  if (s.visibility !== "direct" && (await hasSubscribers(db, rt.dialect, s.accountId))) {
    await rt.queue.enqueue("statuses.notify_subscribers", { statusId: s.id }, {}, db);
  }
  await rt.queue.enqueue("feeds.fanout", { statusId: s.id }, {}, db);
  return async () => {};
}

export async function statusEdited(
  rt: Runtime,
  db: Db,
  s: { id: string; accountId: string; newlyMentioned: string[] },
): Promise<void> {
  await indexStatus(db, rt.dialect, s.id);
  if (s.newlyMentioned.length > 0) {
    await rt.queue.enqueue(
      "statuses.notify_mentioned",
      { statusId: s.id, mentioned: s.newlyMentioned, created: false },
      {},
      db,
    );
  }
  await rt.queue.enqueue("statuses.notify_boosters", { statusId: s.id }, {}, db);
  // The link may have changed, or gone with the card it had.
  await rt.queue.enqueue("cards.fetch", { statusId: s.id }, {}, db);
}

export async function statusDeleted(rt: Runtime, db: Db, s: { id: string; boostIds: string[] }): Promise<void> {
  await unindexStatus(db, rt.dialect, s.id);
  // Notifications about a deleted status or its boosts go with it, and so do their feed entries.
  await db
    .deleteFrom("notifications")
    .where("status_id", "in", [s.id, ...s.boostIds])
    .execute();
  await removeFromConversations(db, s.id);
  await rt.queue.enqueue("feeds.remove", { statusIds: [s.id, ...s.boostIds] }, {}, db);
}

export async function statusFavourited(
  rt: Runtime,
  db: Db,
  f: { statusId: string; authorId: string; by: string },
): Promise<void> {
  await notifyAbout(rt, db, { recipientId: f.authorId, fromAccountId: f.by, type: "favourite", statusId: f.statusId });
}

export async function unfavourited(db: Db, f: { statusId: string; authorId: string; by: string }): Promise<void> {
  await db
    .deleteFrom("notifications")
    .where("account_id", "=", f.authorId)
    .where("from_account_id", "=", f.by)
    .where("type", "=", "favourite")
    .where("status_id", "=", f.statusId)
    .execute();
}

export async function reblogged(
  rt: Runtime,
  db: Db,
  r: { boostId: string; statusId: string; authorId: string; by: string },
): Promise<void> {
  await notifyAbout(rt, db, { recipientId: r.authorId, fromAccountId: r.by, type: "reblog", statusId: r.statusId });
  await rt.queue.enqueue("feeds.fanout", { statusId: r.boostId }, {}, db);
}

export async function unreblogged(
  rt: Runtime,
  db: Db,
  r: { boostId: string; statusId: string; authorId: string; by: string },
): Promise<void> {
  await db
    .deleteFrom("notifications")
    .where("account_id", "=", r.authorId)
    .where("from_account_id", "=", r.by)
    .where("type", "=", "reblog")
    .where("status_id", "=", r.statusId)
    .execute();
  await rt.queue.enqueue("feeds.remove", { statusIds: [r.boostId] }, {}, db);
}

/** Job: see "statuses.notify_mentioned". Run twice, it notifies no one twice. */
export async function notifyMentioned(
  rt: Runtime,
  { statusId, mentioned, created }: JobPayloads["statuses.notify_mentioned"],
): Promise<void> {
  const direct = await rt.db.transaction().execute(async (trx) => {
    // Two runs at once wait for each other on the status row (SQLite's transactions take the write lock
    // as they begin), so the second finds what the first wrote.
    const status = await trx
      .selectFrom("statuses")
      .select(["account_id", "visibility", "conversation_id", "deleted_at"])
      .where("id", "=", statusId)
      .$if(rt.dialect === "postgres", (q) => q.forUpdate())
      .executeTakeFirst();
    if (!status || status.deleted_at) return null;
    const notified = await trx
      .selectFrom("notifications")
      .select("account_id")
      .where("status_id", "=", statusId)
      .where("type", "=", "mention")
      .execute();
    const already = new Set(notified.map((n) => n.account_id));
    for (const recipientId of mentioned.filter((id) => !already.has(id))) {
      await notifyAbout(rt, trx, { recipientId, fromAccountId: status.account_id, type: "mention", statusId });
    }
    if (created && status.visibility === "direct" && status.conversation_id) {
      const direct = { id: statusId, accountId: status.account_id, conversationId: status.conversation_id };
      await addToConversation(trx, status.account_id, direct);
      await deliverToRecipients(trx, direct, mentioned);
      return status.account_id;
    }
    return null;
  });
  if (direct) await publishEvent(rt, "conversation.updated", { statusId, accountIds: [direct, ...mentioned] });
}

/** Job: followers who follow with `notify` hear of each new post (not of replies to others). */
export async function notifySubscribers(rt: Runtime, { statusId }: { statusId: string }): Promise<void> {
  const status = await rt.db
    .selectFrom("statuses")
    .select(["account_id", "in_reply_to_account_id", "visibility", "deleted_at"])
    .where("id", "=", statusId)
    .executeTakeFirst();
  if (!status || status.deleted_at || status.visibility === "direct") return;
  if (status.in_reply_to_account_id && status.in_reply_to_account_id !== status.account_id) return;
  const subscribers = await rt.db
    .selectFrom("follows")
    .select("account_id")
    .where("target_account_id", "=", status.account_id)
    .where("notify", "=", true)
    .execute();
  for (const { account_id } of subscribers) {
    await rt.db.transaction().execute(async (trx) => {
      const already = await trx
        .selectFrom("notifications")
        .select("id")
        .where("account_id", "=", account_id)
        .where("type", "=", "status")
        .where("status_id", "=", statusId)
        .executeTakeFirst();
      if (!already)
        await notify(rt, trx, { recipientId: account_id, fromAccountId: status.account_id, type: "status", statusId });
    });
  }
}

/**
 * Job: people who boosted a status hear that it changed (`update`), and those whose accepted quotes
 * show it (`quoted_update`, about the edited status, as Mastodon). Run twice, it notifies no one
 * twice: someone who already has such a notification newer than the latest edit has heard of it.
 */
export async function notifyBoosters(rt: Runtime, { statusId }: { statusId: string }): Promise<void> {
  const status = await rt.db
    .selectFrom("statuses")
    .select(["account_id", "deleted_at", "edited_at"])
    .where("id", "=", statusId)
    .executeTakeFirst();
  if (!status || status.deleted_at) return;
  const boosters = await rt.db
    .selectFrom("statuses")
    .select("account_id")
    .distinct()
    .where("reblog_of_id", "=", statusId)
    .where("deleted_at", "is", null)
    .execute();
  const quoters = await rt.db
    .selectFrom("quotes")
    .select("account_id")
    .distinct()
    .where("quoted_status_id", "=", statusId)
    .where("state", "=", "accepted")
    .execute();
  const recipients = [
    ...boosters.map((b) => ({ account_id: b.account_id, type: "update" as const })),
    ...quoters.map((q) => ({ account_id: q.account_id, type: "quoted_update" as const })),
  ];
  for (const { account_id, type } of recipients) {
    await rt.db.transaction().execute(async (trx) => {
      const already = await trx
        .selectFrom("notifications")
        .select("id")
        .where("account_id", "=", account_id)
        .where("type", "=", type)
        .where("status_id", "=", statusId)
        .$if(status.edited_at !== null, (q) => q.where("created_at", ">=", status.edited_at!))
        .executeTakeFirst();
      if (already) return;
      await notifyAbout(rt, trx, { recipientId: account_id, fromAccountId: status.account_id, type, statusId });
    });
  }
}
