// Lists: at most 50 per person, holding only accounts they follow.

import type { Selectable } from "kysely";
import { lockRow } from "../../db/concurrency.ts";
import type { Db } from "../../db/index.ts";
import { type Page, type PageResult, paginate } from "../../db/paginate.ts";
import type { ListsTable, RepliesPolicy } from "../../db/schema.ts";
import { notFound, unprocessable } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";

export type List = Selectable<ListsTable>;

const MAX_LISTS = 50;
const REPLIES_POLICIES: RepliesPolicy[] = ["followed", "list", "none"];

export interface ListChanges {
  title?: string;
  repliesPolicy?: string;
  exclusive?: boolean;
}

function check(c: ListChanges, creating: boolean): void {
  if ((creating || c.title !== undefined) && !c.title?.trim())
    throw unprocessable("Validation failed: Title can't be blank");
  if (c.repliesPolicy !== undefined && !REPLIES_POLICIES.includes(c.repliesPolicy as RepliesPolicy)) {
    throw unprocessable("Validation failed: Replies policy is not included in the list");
  }
}

export async function listsOf(rt: Runtime, accountId: string): Promise<List[]> {
  return rt.db.selectFrom("lists").selectAll().where("account_id", "=", accountId).orderBy("id").execute();
}

export async function ownList(db: Db, accountId: string, id: string): Promise<List> {
  const list = await db
    .selectFrom("lists")
    .selectAll()
    .where("id", "=", id)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
  if (!list) throw notFound();
  return list;
}

export async function createList(rt: Runtime, accountId: string, c: ListChanges): Promise<List> {
  check(c, true);
  const now = new Date();
  const list: List = {
    id: newId(),
    account_id: accountId,
    title: c.title!.trim(),
    replies_policy: (c.repliesPolicy as RepliesPolicy) ?? "list",
    exclusive: c.exclusive ?? false,
    created_at: now,
    updated_at: now,
  };
  await rt.db.transaction().execute(async (trx) => {
    // Lists made at once by one account are counted one after the other, so that the limit holds.
    await lockRow(trx, rt.dialect, "accounts", accountId);
    const count = await trx
      .selectFrom("lists")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("account_id", "=", accountId)
      .executeTakeFirstOrThrow();
    if (Number(count.n) >= MAX_LISTS)
      throw unprocessable("Validation failed: You have reached the maximum number of lists");
    await trx.insertInto("lists").values(list).execute();
  });
  return list;
}

export async function updateList(rt: Runtime, accountId: string, id: string, c: ListChanges): Promise<List> {
  check(c, false);
  await ownList(rt.db, accountId, id);
  await rt.db
    .updateTable("lists")
    .set({
      ...(c.title !== undefined ? { title: c.title.trim() } : {}),
      ...(c.repliesPolicy !== undefined ? { replies_policy: c.repliesPolicy as RepliesPolicy } : {}),
      ...(c.exclusive !== undefined ? { exclusive: c.exclusive } : {}),
      updated_at: new Date(),
    })
    .where("id", "=", id)
    .execute();
  return ownList(rt.db, accountId, id);
}

export async function deleteList(rt: Runtime, accountId: string, id: string): Promise<void> {
  await ownList(rt.db, accountId, id);
  await rt.db.transaction().execute(async (trx) => {
    await trx.deleteFrom("lists").where("id", "=", id).execute();
    await trx.deleteFrom("feed_entries").where("feed_id", "=", id).execute();
  });
}

/** The list's members, by membership id; a limit of 0 means all of them. */
export async function listMembers(
  rt: Runtime,
  accountId: string,
  id: string,
  page: Page,
): Promise<PageResult<{ id: string; account_id: string }>> {
  await ownList(rt.db, accountId, id);
  const q = rt.db.selectFrom("list_accounts").select(["id", "account_id"]).where("list_id", "=", id);
  if (page.limit === 0) {
    const all = await q.orderBy("id", "desc").execute();
    return { items: all, next: null, prev: null };
  }
  return paginate(q, "id", page);
}

export async function addMembers(rt: Runtime, accountId: string, id: string, accountIds: string[]): Promise<void> {
  await ownList(rt.db, accountId, id);
  const unique = [...new Set(accountIds)];
  if (unique.length === 0) return;
  await rt.db.transaction().execute(async (trx) => {
    const follows = await trx
      .selectFrom("follows")
      .select(["id", "target_account_id"])
      .where("account_id", "=", accountId)
      .where("target_account_id", "in", unique)
      .execute();
    const byTarget = new Map(follows.map((f) => [f.target_account_id, f.id]));
    const present = await trx
      .selectFrom("list_accounts")
      .select("account_id")
      .where("list_id", "=", id)
      .where("account_id", "in", unique)
      .execute();
    const taken = () => unprocessable("Validation failed: Account has already been taken");
    if (present.length > 0) throw taken();
    for (const target of unique) {
      const followId = byTarget.get(target);
      if (!followId) {
        const exists = await trx.selectFrom("accounts").select("id").where("id", "=", target).executeTakeFirst();
        if (!exists) throw notFound();
        throw unprocessable("Validation failed: Account must be followed");
      }
      // A request adding the same member at once committed first: taken, as if it had come before.
      const inserted = await trx
        .insertInto("list_accounts")
        .values({ id: newId(), list_id: id, account_id: target, follow_id: followId, created_at: new Date() })
        .onConflict((oc) => oc.columns(["list_id", "account_id"]).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) throw taken();
      await rt.queue.enqueue("feeds.merge", { feedId: id, authorId: target, listId: id }, {}, trx);
    }
  });
}

export async function removeMembers(rt: Runtime, accountId: string, id: string, accountIds: string[]): Promise<void> {
  await ownList(rt.db, accountId, id);
  if (accountIds.length === 0) return;
  await rt.db.transaction().execute(async (trx) => {
    await trx.deleteFrom("list_accounts").where("list_id", "=", id).where("account_id", "in", accountIds).execute();
    for (const authorId of accountIds) {
      await rt.queue.enqueue("feeds.unmerge", { feedId: id, authorId, boosts: false }, {}, trx);
    }
  });
}

/** The viewer's lists that contain an account (GET /api/v1/accounts/:id/lists). */
export async function listsContaining(rt: Runtime, viewerId: string, targetId: string): Promise<List[]> {
  return rt.db
    .selectFrom("lists as l")
    .innerJoin("list_accounts as la", "la.list_id", "l.id")
    .selectAll("l")
    .where("l.account_id", "=", viewerId)
    .where("la.account_id", "=", targetId)
    .orderBy("l.id")
    .execute();
}
