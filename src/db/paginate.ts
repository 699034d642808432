// Paging a query by id, with Mastodon's semantics:
//   max_id  → items older than it, newest first;
//   since_id → items newer than it, newest first (the newest page);
//   min_id  → the items immediately newer than it (the page right after it), still returned newest first.
// One extra row is read to know whether an older page exists.
import { type SelectQueryBuilder, sql } from "kysely";

export interface Page {
  maxId: string | null;
  sinceId: string | null;
  minId: string | null;
  limit: number;
}

export interface PageResult<T> {
  items: T[];
  /** Cursor for the next (older) page, when one exists. */
  next: string | null;
  /** Cursor for the previous (newer) page. */
  prev: string | null;
}

/** A page of accounts, each with the id of the row that listed it (a follow, a block…) as cursor. */
export type AccountPage = PageResult<{ id: string; account_id: string }>;

/** What a page reads: ids beyond its bounds, in `order`, `limit` rows (one more than the page). */
export interface PagePlan {
  bounds: { op: "<" | ">"; id: string }[];
  order: "asc" | "desc";
  limit: number;
}

export function pagePlan(page: Page): PagePlan {
  const bounds: PagePlan["bounds"] = [];
  if (page.maxId) bounds.push({ op: "<", id: page.maxId });
  if (page.sinceId) bounds.push({ op: ">", id: page.sinceId });
  if (page.minId) bounds.push({ op: ">", id: page.minId });
  return { bounds, order: page.minId !== null ? "asc" : "desc", limit: page.limit + 1 };
}

/** The page from the rows its plan read. */
export function cutPage<T>(rows: T[], page: Page, cursorOf: (row: T) => string): PageResult<T> {
  const ascending = page.minId !== null;
  const items = rows.slice(0, page.limit);
  if (ascending) items.reverse();
  return pageResultOf(items, ascending || rows.length > page.limit, cursorOf);
}

/**
 * Applies the page's bounds, order and limit (+1) on `column`, runs the query and cuts the result.
 * `cursorOf` reads the cursor value back from a row (by default its `id`).
 */
export async function paginate<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  column: string,
  page: Page,
  cursorOf: (row: O) => string = (row) => (row as { id: string }).id,
): Promise<PageResult<O>> {
  const ref = sql.ref(column);
  const plan = pagePlan(page);
  let q = query;
  for (const { op, id } of plan.bounds) q = q.where(sql<boolean>`${ref} ${sql.raw(op)} ${id}`);
  const rows = await q
    .orderBy(ref as never, plan.order)
    .limit(plan.limit)
    .execute();
  return cutPage(rows, page, cursorOf);
}

/** For lists paginated in memory or by another query: the result from items already cut to the page. */
export function pageResultOf<T>(items: T[], hasOlder: boolean, cursorOf: (row: T) => string): PageResult<T> {
  if (items.length === 0) return { items, next: null, prev: null };
  return {
    items,
    next: hasOlder ? cursorOf(items[items.length - 1]) : null,
    prev: cursorOf(items[0]),
  };
}
