// Filters (v2) and their keywords and statuses; the v1 API maps onto the same rows, one keyword per
// v1 filter. Every change tells the bus, so cached matchers (and streaming clients) learn of it.
import type { Selectable } from "kysely";
import type { Db } from "../../db/index.ts";
import type {
  FilterAction,
  FilterContext,
  FilterKeywordsTable,
  FilterStatusesTable,
  FiltersTable,
} from "../../db/schema.ts";
import { ApiError, notFound, unprocessable } from "../../domain/errors.ts";
import { type CompiledFilter, keywordPattern } from "../../domain/filters.ts";
import { newId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";

export type Filter = Selectable<FiltersTable>;
export type FilterKeyword = Selectable<FilterKeywordsTable>;
export type FilterStatus = Selectable<FilterStatusesTable>;
export interface FilterWithRules {
  filter: Filter;
  keywords: FilterKeyword[];
  statuses: FilterStatus[];
}

export const CONTEXTS: FilterContext[] = ["home", "notifications", "public", "thread", "account"];
export const ACTIONS: FilterAction[] = ["warn", "hide", "blur"];

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

const CHANNEL = "filters:changed";

async function changed(rt: Runtime, accountId: string): Promise<void> {
  compiledCache.get(rt)?.delete(accountId);
  await rt.bus.publish(CHANNEL, accountId);
}

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

function checkKeyword(keyword: string | undefined): string {
  if (!keyword?.trim()) throw unprocessable("Validation failed: Keyword can't be blank");
  return keyword.trim();
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

async function ownFilter(db: Db, accountId: string, id: string): Promise<Filter> {
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
  const keywords = (c.keywords ?? [])
    .filter((k) => !k.destroy)
    .map((k) => ({ ...k, keyword: checkKeyword(k.keyword) }));
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
        .values({
          id: newId(),
          filter_id: id,
          keyword: k.keyword,
          whole_word: k.wholeWord ?? true,
          created_at: now,
          updated_at: now,
        })
        .execute();
    }
  });
  await changed(rt, accountId);
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
          .values({
            id: newId(),
            filter_id: id,
            keyword: checkKeyword(k.keyword),
            whole_word: k.wholeWord ?? true,
            created_at: now,
            updated_at: now,
          })
          .execute();
      }
    }
  });
  await changed(rt, accountId);
  return getFilter(rt, accountId, id);
}

export async function deleteFilter(rt: Runtime, accountId: string, id: string): Promise<void> {
  await ownFilter(rt.db, accountId, id);
  await rt.db.deleteFrom("filters").where("id", "=", id).execute();
  await changed(rt, accountId);
}

// Keywords and statuses one by one (/api/v2/filters/:id/keywords, /api/v2/filters/keywords/:id…).

async function ownKeyword(db: Db, accountId: string, id: string) {
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
  const now = new Date();
  const id = newId();
  await rt.db
    .insertInto("filter_keywords")
    .values({
      id,
      filter_id: filterId,
      keyword: checkKeyword(k.keyword),
      whole_word: k.wholeWord ?? true,
      created_at: now,
      updated_at: now,
    })
    .execute();
  await changed(rt, accountId);
  return ownKeyword(rt.db, accountId, id);
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
  await changed(rt, accountId);
  return ownKeyword(rt.db, accountId, id);
}

export async function deleteKeyword(rt: Runtime, accountId: string, id: string): Promise<void> {
  await ownKeyword(rt.db, accountId, id);
  await rt.db.deleteFrom("filter_keywords").where("id", "=", id).execute();
  await changed(rt, accountId);
}

async function ownFilterStatus(db: Db, accountId: string, id: string) {
  const row = await db
    .selectFrom("filter_statuses as s")
    .innerJoin("filters as f", "f.id", "s.filter_id")
    .selectAll("s")
    .where("s.id", "=", id)
    .where("f.account_id", "=", accountId)
    .executeTakeFirst();
  if (!row) throw notFound();
  return row;
}

export async function listFilterStatuses(rt: Runtime, accountId: string, filterId: string) {
  return (await getFilter(rt, accountId, filterId)).statuses;
}

export async function addFilterStatus(rt: Runtime, accountId: string, filterId: string, statusId: string) {
  await ownFilter(rt.db, accountId, filterId);
  const status = await rt.db
    .selectFrom("statuses")
    .select("id")
    .where("id", "=", statusId)
    .where("deleted_at", "is", null)
    .executeTakeFirst();
  if (!status) throw notFound();
  const taken = await rt.db
    .selectFrom("filter_statuses")
    .select("id")
    .where("filter_id", "=", filterId)
    .where("status_id", "=", statusId)
    .executeTakeFirst();
  if (taken) throw unprocessable("Validation failed: Status has already been taken");
  const id = newId();
  await rt.db
    .insertInto("filter_statuses")
    .values({ id, filter_id: filterId, status_id: statusId, created_at: new Date() })
    .execute();
  await changed(rt, accountId);
  return ownFilterStatus(rt.db, accountId, id);
}

export const getFilterStatus = (rt: Runtime, accountId: string, id: string) => ownFilterStatus(rt.db, accountId, id);

export async function deleteFilterStatus(rt: Runtime, accountId: string, id: string): Promise<void> {
  await ownFilterStatus(rt.db, accountId, id);
  await rt.db.deleteFrom("filter_statuses").where("id", "=", id).execute();
  await changed(rt, accountId);
}

// The v1 API: a "filter" is one keyword with its group's settings.

export interface V1FilterInput {
  phrase?: string;
  context?: string[];
  irreversible?: boolean;
  wholeWord?: boolean;
  expiresIn?: number | null;
}

export async function listV1Filters(rt: Runtime, accountId: string) {
  return (await listFilters(rt, accountId)).flatMap((f) =>
    f.keywords.map((keyword) => ({ keyword, filter: f.filter })),
  );
}

export async function getV1Filter(rt: Runtime, accountId: string, keywordId: string) {
  const keyword = await ownKeyword(rt.db, accountId, keywordId);
  return { keyword, filter: await ownFilter(rt.db, accountId, keyword.filter_id) };
}

export async function createV1Filter(rt: Runtime, accountId: string, v: V1FilterInput) {
  const created = await createFilter(rt, accountId, {
    title: v.phrase,
    context: v.context,
    action: v.irreversible ? "hide" : "warn",
    expiresIn: v.expiresIn,
    keywords: [{ keyword: v.phrase, wholeWord: v.wholeWord ?? true }],
  });
  return { keyword: created.keywords[0], filter: created.filter };
}

export async function updateV1Filter(rt: Runtime, accountId: string, keywordId: string, v: V1FilterInput) {
  const { filter } = await getV1Filter(rt, accountId, keywordId);
  const changesGroup = v.context !== undefined || v.irreversible !== undefined || v.expiresIn !== undefined;
  if (changesGroup) {
    const count = await rt.db
      .selectFrom("filter_keywords")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("filter_id", "=", filter.id)
      .executeTakeFirstOrThrow();
    if (Number(count.n) > 1) {
      throw new ApiError(
        422,
        "These parameters cannot be changed from this application because they apply to more than one filter keyword. Use a more recent application or the web interface.",
      );
    }
  }
  await updateFilter(rt, accountId, filter.id, {
    context: v.context,
    action: v.irreversible === undefined ? undefined : v.irreversible ? "hide" : "warn",
    expiresIn: v.expiresIn,
    keywords: [{ id: keywordId, keyword: v.phrase, wholeWord: v.wholeWord }],
  });
  return getV1Filter(rt, accountId, keywordId);
}

export async function deleteV1Filter(rt: Runtime, accountId: string, keywordId: string): Promise<void> {
  await deleteKeyword(rt, accountId, keywordId);
}

// Applying filters: each account's filters compiled once, until they change.

const compiledCache = new WeakMap<Runtime, Map<string, CompiledFilter[]>>();

export async function activeFilters(rt: Runtime, accountId: string): Promise<CompiledFilter[]> {
  let cache = compiledCache.get(rt);
  if (!cache) {
    const fresh = new Map<string, CompiledFilter[]>();
    rt.bus.subscribe(CHANNEL, (id) => fresh.delete(id));
    compiledCache.set(rt, fresh);
    cache = fresh;
  }
  const hit = cache.get(accountId);
  if (hit) return hit;
  const compiled = (await listFilters(rt, accountId)).map((f) => ({
    filter: {
      id: f.filter.id,
      title: f.filter.title,
      context: f.filter.context,
      action: f.filter.action,
      expires_at: f.filter.expires_at,
    },
    keywords: f.keywords.map((k) => ({ keyword: k.keyword, pattern: keywordPattern(k.keyword, k.whole_word) })),
    statusIds: new Set(f.statuses.map((s) => s.status_id)),
  }));
  if (cache.size > 10_000) cache.clear();
  cache.set(accountId, compiled);
  return compiled;
}
