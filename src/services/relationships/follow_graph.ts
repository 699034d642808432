// The follow graph's rows and everything that must move with them, inside the caller's transaction:
// follower and following counters, the notifications a follow or request caused, and endorsements
// (one can only feature an account one follows). Each primitive changes counters only when its own
// insert or delete took effect, so two racing requests cannot count twice.
import { sql } from "kysely";
import type { Db } from "../../db/index.ts";
import { newId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import { withdrawNotifications } from "../notifications/create.ts";

export interface FollowOptions {
  /** Show the account's boosts in the home feed. */
  reblogs?: boolean;
  /** Notify on the account's new posts. */
  notify?: boolean;
  /** Only these languages in the home feed; null for all. */
  languages?: string[] | null;
}

export interface Pair {
  sourceId: string;
  targetId: string;
}

type Counter = "followers_count" | "following_count";

/** Counts one follow less, never below zero. */
async function uncount(db: Db, accountId: string, counter: Counter): Promise<void> {
  await db
    .updateTable("account_stats")
    .set({ [counter]: sql`case when ${sql.ref(counter)} > 0 then ${sql.ref(counter)} - 1 else 0 end` })
    .where("account_id", "=", accountId)
    .execute();
}

const optionColumns = (o: FollowOptions) => ({
  ...(o.reblogs !== undefined && { show_reblogs: o.reblogs }),
  ...(o.notify !== undefined && { notify: o.notify }),
  ...(o.languages !== undefined && { languages: o.languages === null ? null : JSON.stringify(o.languages) }),
});

const newRow = (pair: Pair, o: FollowOptions, uri: string | null) => ({
  id: newId(),
  account_id: pair.sourceId,
  target_account_id: pair.targetId,
  show_reblogs: o.reblogs ?? true,
  notify: o.notify ?? false,
  languages: o.languages ? JSON.stringify(o.languages) : null,
  uri,
  created_at: new Date(),
});

/** Creates the follow and counts it; returns false when it already existed. The account's recent posts join the home feed. */
export async function insertFollow(rt: Runtime, db: Db, pair: Pair, options: FollowOptions, uri: string | null = null) {
  const inserted = await insertFollows(rt, db, pair.sourceId, [{ targetId: pair.targetId, options, uri }]);
  return inserted.length > 0;
}

/**
 * Creates the follows of `sourceId` (distinct targets) in one statement and counts them; returns the
 * targets whose follow is new. Their recent posts join the home feed in one job.
 */
export async function insertFollows(
  rt: Runtime,
  db: Db,
  sourceId: string,
  follows: { targetId: string; options: FollowOptions; uri?: string | null }[],
): Promise<string[]> {
  if (follows.length === 0) return [];
  const inserted = (
    await db
      .insertInto("follows")
      .values(follows.map((f) => newRow({ sourceId, targetId: f.targetId }, f.options, f.uri ?? null)))
      .onConflict((oc) => oc.columns(["account_id", "target_account_id"]).doNothing())
      .returning("target_account_id")
      .execute()
  ).map((r) => r.target_account_id);
  if (inserted.length === 0) return inserted;
  await db
    .insertInto("account_stats")
    .values({ account_id: sourceId, following_count: inserted.length, last_status_at: null })
    .onConflict((oc) =>
      oc.column("account_id").doUpdateSet({ following_count: sql`account_stats.following_count + ${inserted.length}` }),
    )
    .execute();
  await db
    .insertInto("account_stats")
    .values(inserted.map((id) => ({ account_id: id, followers_count: 1, last_status_at: null })))
    .onConflict((oc) =>
      oc.column("account_id").doUpdateSet({ followers_count: sql`account_stats.followers_count + 1` }),
    )
    .execute();
  await rt.queue.enqueue("feeds.merge", { feedId: sourceId, authorIds: inserted }, {}, db);
  return inserted;
}

/** Creates the follow request; returns false when it already existed. */
export async function insertFollowRequest(db: Db, pair: Pair, options: FollowOptions, uri: string | null = null) {
  const inserted = await db
    .insertInto("follow_requests")
    .values(newRow(pair, options, uri))
    .onConflict((oc) => oc.columns(["account_id", "target_account_id"]).doNothing())
    .returning("id")
    .executeTakeFirst();
  return inserted !== undefined;
}

/** Changes the options given of an existing follow or request (reblogs, notify, languages). */
export async function updateFollowOptions(
  db: Db,
  table: "follows" | "follow_requests",
  pair: Pair,
  options: FollowOptions,
): Promise<void> {
  const set = optionColumns(options);
  if (Object.keys(set).length === 0) return;
  await db
    .updateTable(table)
    .set(set)
    .where("account_id", "=", pair.sourceId)
    .where("target_account_id", "=", pair.targetId)
    .execute();
}

/**
 * Ends a follow: uncounts it, withdraws its `follow` notification and the endorsement that needed it,
 * and takes the account's posts out of the home feed and the lists it was in. Returns false when
 * there was none.
 */
export async function deleteFollow(rt: Runtime, db: Db, pair: Pair): Promise<boolean> {
  const lists = await db
    .selectFrom("list_accounts as la")
    .innerJoin("lists as l", "l.id", "la.list_id")
    .select("l.id")
    .where("l.account_id", "=", pair.sourceId)
    .where("la.account_id", "=", pair.targetId)
    .execute();
  const deleted = await db
    .deleteFrom("follows")
    .where("account_id", "=", pair.sourceId)
    .where("target_account_id", "=", pair.targetId)
    .returning("id")
    .executeTakeFirst();
  if (!deleted) return false;
  await uncount(db, pair.sourceId, "following_count");
  await uncount(db, pair.targetId, "followers_count");
  for (const feedId of [pair.sourceId, ...lists.map((l) => l.id)]) {
    await rt.queue.enqueue("feeds.unmerge", { feedId, authorId: pair.targetId, boosts: false }, {}, db);
  }
  await withdrawNotifications(db, { recipientId: pair.targetId, fromAccountId: pair.sourceId, types: ["follow"] });
  await db
    .deleteFrom("account_pins")
    .where("account_id", "=", pair.sourceId)
    .where("target_account_id", "=", pair.targetId)
    .execute();
  return true;
}

/** Ends a pending request (withdrawn, rejected or accepted) with its notification; the row, if any. */
export async function deleteFollowRequest(db: Db, pair: Pair) {
  const deleted = await db
    .deleteFrom("follow_requests")
    .where("account_id", "=", pair.sourceId)
    .where("target_account_id", "=", pair.targetId)
    .returningAll()
    .executeTakeFirst();
  if (deleted) {
    await withdrawNotifications(db, {
      recipientId: pair.targetId,
      fromAccountId: pair.sourceId,
      types: ["follow_request"],
    });
  }
  return deleted ?? null;
}
