// Filters (v2): groups of keywords and statuses with a context, an action and an expiry, created and
// changed with their keywords in one go. Keywords and statuses one by one are in keywords.ts and
// filter_statuses.ts, the v1 API in v1.ts, what read paths match against in active.ts. Every change
// publishes filters.changed, so compiled matchers everywhere learn of it.
import type { Selectable } from "kysely";
import type { Db } from "../../db/index.ts";
import type {
  FilterAction,
  FilterContext,
  FilterKeywordsTable,
  FilterStatusesTable,
  FiltersTable,
} from "../../db/schema.ts";
import { notFound, unprocessable } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import { publishEvent } from "../../streaming/events.ts";

export type Filter = Selectable<FiltersTable>;
export type FilterKeyword = Selectable<FilterKeywordsTable>;
export type FilterStatus = Selectable<FilterStatusesTable>;
export interface FilterWithRules {
  filter: Filter;
  keywords: FilterKeyword[];
  statuses: FilterStatus[];
}

const CONTEXTS: FilterContext[] = ["home", "notifications", "public", "thread", "account"];
const ACTIONS: FilterAction[] = ["warn", "hide", "blur"];

export interface KeywordChange {
  id?: string;
  keyword?: string;
  wholeWord?: boolean;
  destroy?: boolean;
}

export interface FilterChanges {
  title?: string;
  context?: string[];
  action?: string;
  /** Seconds from now; null removes the expiry. */
  expiresIn?: number | null;
  keywords?: KeywordChange[];
}

export const filtersChanged = (rt: Runtime, accountId: string) => publishEvent(rt, "filters.changed", { accountId });

function checkFilter(c: FilterChanges, creating: boolean): void {
  if ((creating || c.title !== undefined) && !c.title?.trim())
    throw unprocessable("Validation failed: Title can't be blank");
  if (creating || c.context !== undefined) {
    if (!c.context || c.context.length === 0) throw unprocessable("Validation failed: Context can't be blank");
    if (c.context.some((x) => !CONTEXTS.includes(x as FilterContext))) {
      throw unprocessable("Validation failed: Context None or invalid context supplied");
    }
  }
  if (c.action !== undefined && !ACTIONS.includes(c.action as FilterAction)) {
    throw unprocessable("Validation failed: Filter action is not included in the list");
  }
  if (c.expiresIn !== undefined && c.expiresIn !== null && c.expiresIn <= 0) {
    throw unprocessable("Validation failed: Expires in must be greater than 0");
  }
}

export function checkKeyword(keyword: string | undefined): string {
  if (!keyword?.trim()) throw unprocessable("Validation failed: Keyword can't be blank");
  return keyword.trim();
}

/** A keyword row; whole-word matching unless told otherwise, as Mastodon. */
export function keywordRow(filterId: string, keyword: string | undefined, wholeWord: boolean | undefined, now: Date) {
  return {
    id: newId(),
    filter_id: filterId,
    keyword: checkKeyword(keyword),
    whole_word: wholeWord ?? true,
    created_at: now,
    updated_at: now,
  };
}

const expiry = (seconds: number | null | undefined) =>
  seconds === undefined ? undefined : seconds === null ? null : new Date(Date.now() + seconds * 1000);

export async function listFilters(rt: Runtime, accountId: string): Promise<FilterWithRules[]> {
  const filters = await rt.db
    .selectFrom("filters")
    .selectAll()
    .where("account_id", "=", accountId)
    .orderBy("id")
    .execute();
  return withRules(rt.db, filters);
}

async function withRules(db: Db, filters: Filter[]): Promise<FilterWithRules[]> {
  const ids = filters.map((f) => f.id);
  if (ids.length === 0) return [];
  const keywords = await db
    .selectFrom("filter_keywords")
    .selectAll()
    .where("filter_id", "in", ids)
    .orderBy("id")
    .execute();
  const statuses = await db
    .selectFrom("filter_statuses")
    .selectAll()
    .where("filter_id", "in", ids)
    .orderBy("id")
    .execute();
  return filters.map((filter) => ({
    filter,
    keywords: keywords.filter((k) => k.filter_id === filter.id),
    statuses: statuses.filter((s) => s.filter_id === filter.id),
  }));
}

export async function ownFilter(db: Db, accountId: string, id: string): Promise<Filter> {
  const f = await db
    .selectFrom("filters")
    .selectAll()
    .where("id", "=", id)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
  if (!f) throw notFound();
  return f;
}

export async function getFilter(rt: Runtime, accountId: string, id: string): Promise<FilterWithRules> {
  return (await withRules(rt.db, [await ownFilter(rt.db, accountId, id)]))[0];
}

export async function createFilter(rt: Runtime, accountId: string, c: FilterChanges): Promise<FilterWithRules> {
  checkFilter(c, true);
  if (c.keywords?.some((k) => k.id !== undefined)) throw notFound();
  const keywords = (c.keywords ?? []).filter((k) => !k.destroy);
  for (const k of keywords) checkKeyword(k.keyword);
  const now = new Date();
  const id = newId();
  await rt.db.transaction().execute(async (trx) => {
    await trx
      .insertInto("filters")
      .values({
        id,
        account_id: accountId,
        title: c.title!.trim(),
        context: JSON.stringify([...new Set(c.context)]),
        action: (c.action as FilterAction) ?? "warn",
        expires_at: expiry(c.expiresIn) ?? null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    for (const k of keywords) {
      await trx
        .insertInto("filter_keywords")
        .values(keywordRow(id, k.keyword, k.wholeWord, now))
        .execute();
    }
  });
  await filtersChanged(rt, accountId);
  return getFilter(rt, accountId, id);
}

export async function updateFilter(
  rt: Runtime,
  accountId: string,
  id: string,
  c: FilterChanges,
): Promise<FilterWithRules> {
  checkFilter(c, false);
  const now = new Date();
  await rt.db.transaction().execute(async (trx) => {
    await ownFilter(trx, accountId, id);
    const expiresAt = expiry(c.expiresIn);
    await trx
      .updateTable("filters")
      .set({
        ...(c.title !== undefined ? { title: c.title.trim() } : {}),
        ...(c.context !== undefined ? { context: JSON.stringify([...new Set(c.context)]) } : {}),
        ...(c.action !== undefined ? { action: c.action as FilterAction } : {}),
        ...(expiresAt !== undefined ? { expires_at: expiresAt } : {}),
        updated_at: now,
      })
      .where("id", "=", id)
      .execute();
    for (const k of c.keywords ?? []) {
      if (k.id !== undefined) {
        const existing = await trx
          .selectFrom("filter_keywords")
          .select("id")
          .where("id", "=", k.id)
          .where("filter_id", "=", id)
          .executeTakeFirst();
        if (!existing) throw notFound();
        if (k.destroy) {
          await trx.deleteFrom("filter_keywords").where("id", "=", k.id).execute();
        } else {
          await trx
            .updateTable("filter_keywords")
            .set({
              ...(k.keyword !== undefined ? { keyword: checkKeyword(k.keyword) } : {}),
              ...(k.wholeWord !== undefined ? { whole_word: k.wholeWord } : {}),
              updated_at: now,
            })
            .where("id", "=", k.id)
            .execute();
        }
      } else if (!k.destroy) {
        await trx
          .insertInto("filter_keywords")
          .values(keywordRow(id, k.keyword, k.wholeWord, now))
          .execute();
      }
    }
  });
  await filtersChanged(rt, accountId);
  return getFilter(rt, accountId, id);
}

export async function deleteFilter(rt: Runtime, accountId: string, id: string): Promise<void> {
  await ownFilter(rt.db, accountId, id);
  await rt.db.deleteFrom("filters").where("id", "=", id).execute();
  await filtersChanged(rt, accountId);
}
