// The `hide` action of filters, applied where statuses are listed: a status a `hide` filter of the
// viewer matches in the read path's context is left out of the page before it is cut, and the page
// is filled from further down, so that a page is never shorter than the statuses it could hold.
// (`warn` and `blur` results are shown on the status entity by the serializer.)
import type { Page, PageResult } from "../../db/paginate.ts";
import type { FilterContext } from "../../db/schema.ts";
import { type CompiledFilter, matchFilters } from "../../domain/filters.ts";
import { htmlToPlainText } from "../../domain/text/index.ts";
import type { Runtime } from "../../runtime.ts";
import { loadStatusRows } from "../visibility/load.ts";
import { activeFilters } from "./active.ts";

/** How many more pages a page may read to make up for hidden statuses. */
const MAX_ROUNDS = 5;

/** The viewer's filters that hide statuses in `context`. */
async function hidingFilters(rt: Runtime, viewerId: string | null, context: FilterContext): Promise<CompiledFilter[]> {
  if (viewerId === null) return [];
  const now = new Date();
  return (await activeFilters(rt, viewerId)).filter(
    (f) =>
      f.filter.action === "hide" &&
      f.filter.context.includes(context) &&
      (f.filter.expires_at === null || f.filter.expires_at > now),
  );
}

/** Of these statuses, those the filters hide: a boost by what it boosts. */
async function matched(rt: Runtime, filters: CompiledFilter[], context: FilterContext, ids: (string | null)[]) {
  const rows = await loadStatusRows(
    rt.db,
    ids.filter((id): id is string => id !== null),
  );
  const originals = await loadStatusRows(
    rt.db,
    [...rows.values()].map((r) => r.reblog_of_id).filter((id): id is string => id !== null),
  );
  const hidden = new Set<string>();
  for (const row of rows.values()) {
    const subject = (row.reblog_of_id && originals.get(row.reblog_of_id)) || row;
    const text = `${subject.spoiler_text}\n\n${htmlToPlainText(subject.content)}`;
    if (matchFilters(filters, context, { id: subject.id, text }).length > 0) hidden.add(row.id);
  }
  return hidden;
}

/** The statuses among `ids` that the viewer's `hide` filters of `context` leave out. */
export async function hiddenStatusIds(
  rt: Runtime,
  viewerId: string | null,
  context: FilterContext,
  ids: (string | null)[],
): Promise<Set<string>> {
  const filters = await hidingFilters(rt, viewerId, context);
  return filters.length === 0 ? new Set() : matched(rt, filters, context, ids);
}

/**
 * A page of `read` without what the viewer's `hide` filters of `context` leave out, made up from the
 * following pages. `statusOf` names an item's status (null: nothing to filter), `cursorOf` its cursor.
 * Without such filters, `read`'s own page is returned as it is.
 */
export async function pageWithoutHidden<T, R extends PageResult<T>>(
  rt: Runtime,
  viewerId: string | null,
  context: FilterContext,
  page: Page,
  read: (page: Page) => Promise<R>,
  statusOf: (item: T) => string | null,
  cursorOf: (item: T) => string,
): Promise<R | PageResult<T>> {
  const filters = await hidingFilters(rt, viewerId, context);
  if (filters.length === 0) return read(page);
  const ascending = page.minId !== null;
  let kept: T[] = [];
  let cursor = page;
  let more = false;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const result = await read(cursor);
    const hidden = await matched(rt, filters, context, result.items.map(statusOf));
    const shown = result.items.filter((item) => !hidden.has(statusOf(item) ?? ""));
    // Items come newest first; after min_id, each further page is newer than the last.
    kept = ascending ? [...shown, ...kept] : [...kept, ...shown];
    more = ascending ? result.items.length === cursor.limit : result.next !== null;
    if (kept.length >= page.limit || !more) break;
    cursor = ascending
      ? { ...page, minId: cursorOf(result.items[0]) }
      : { ...page, maxId: cursorOf(result.items[result.items.length - 1]) };
  }
  const items = ascending ? kept.slice(-page.limit) : kept.slice(0, page.limit);
  if (items.length === 0) return { items, next: null, prev: null };
  const older = !ascending && (kept.length > page.limit || more);
  return { items, next: ascending || older ? cursorOf(items[items.length - 1]) : null, prev: cursorOf(items[0]) };
}
