// A filter's keywords one by one (/api/v2/filters/:id/keywords, /api/v2/filters/keywords/:id).
import type { Db } from "../../db/index.ts";
import { notFound } from "../../domain/errors.ts";
import type { Runtime } from "../../runtime.ts";
import { checkKeyword, filtersChanged, getFilter, keywordRow, ownFilter } from "./filters.ts";

/** One of the account's keywords, or 404. */
export async function ownKeyword(db: Db, accountId: string, id: string) {
  const row = await db
    .selectFrom("filter_keywords as k")
    .innerJoin("filters as f", "f.id", "k.filter_id")
    .selectAll("k")
    .where("k.id", "=", id)
    .where("f.account_id", "=", accountId)
    .executeTakeFirst();
  if (!row) throw notFound();
  return row;
}

export async function listKeywords(rt: Runtime, accountId: string, filterId: string) {
  return (await getFilter(rt, accountId, filterId)).keywords;
}

export async function addKeyword(
  rt: Runtime,
  accountId: string,
  filterId: string,
  k: { keyword?: string; wholeWord?: boolean },
) {
  await ownFilter(rt.db, accountId, filterId);
  const row = keywordRow(filterId, k.keyword, k.wholeWord, new Date());
  await rt.db.insertInto("filter_keywords").values(row).execute();
  await filtersChanged(rt, accountId);
  return ownKeyword(rt.db, accountId, row.id);
}

export const getKeyword = (rt: Runtime, accountId: string, id: string) => ownKeyword(rt.db, accountId, id);

export async function updateKeyword(
  rt: Runtime,
  accountId: string,
  id: string,
  k: { keyword?: string; wholeWord?: boolean },
) {
  await ownKeyword(rt.db, accountId, id);
  await rt.db
    .updateTable("filter_keywords")
    .set({
      ...(k.keyword !== undefined ? { keyword: checkKeyword(k.keyword) } : {}),
      ...(k.wholeWord !== undefined ? { whole_word: k.wholeWord } : {}),
      updated_at: new Date(),
    })
    .where("id", "=", id)
    .execute();
  await filtersChanged(rt, accountId);
  return ownKeyword(rt.db, accountId, id);
}

export async function deleteKeyword(rt: Runtime, accountId: string, id: string): Promise<void> {
  await ownKeyword(rt.db, accountId, id);
  await rt.db.deleteFrom("filter_keywords").where("id", "=", id).execute();
  await filtersChanged(rt, accountId);
}
