// Grouped notifications (/api/v2/notifications), as Mastodon 4.3+ pages them: walking the
// notifications newest first (oldest first after `min_id`), each group is represented by the first of
// its notifications met, until `limit` groups are found. Favourites and boosts of one status, and
// follows, share a group key; other types, and types the client does not group, stand alone.
import { sql } from "kysely";
import type { Page } from "../../db/paginate.ts";
import type { NotificationType } from "../../db/schema.ts";
import { idTime, isId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import { hiddenStatusIds } from "../filters/hidden.ts";
import { browsable, COLUMNS, lastReadId, type NotificationQuery, type NotificationRow } from "./read.ts";

const GROUPABLE: readonly NotificationType[] = ["favourite", "reblog", "follow"];
/** How many of the accounts behind a group are named in it. */
const SAMPLE_ACCOUNTS = 8;

export interface GroupQuery extends NotificationQuery {
  /** The types the client groups; Mastodon's defaults when absent. */
  groupedTypes?: readonly string[];
}

export interface NotificationGroup {
  key: string;
  type: NotificationType;
  count: number;
  mostRecentId: string;
  sampleAccountIds: string[];
  statusId: string | null;
  reportId: string | null;
  accountWarningId: string | null;
  accountSeveranceId: string | null;
  /** Where the group lies within the page, when paging. */
  page: { minId: string; maxId: string; latestAt: Date } | null;
}

function groupedTypes(q: GroupQuery): NotificationType[] {
  if (!q.groupedTypes || q.groupedTypes.length === 0) return [...GROUPABLE];
  return GROUPABLE.filter((t) => q.groupedTypes?.includes(t));
}

/** The key a notification is shown under: its group's when its type is grouped, else its own. */
const keyOf = (n: NotificationRow, grouped: readonly NotificationType[]) =>
  grouped.includes(n.type) && !n.group_key.startsWith("ungrouped-") ? n.group_key : `ungrouped-${n.id}`;

/**
 * The page's representatives, newest first: one notification per group, the first met walking from
 * the page's cursor. Rows are read in batches so that a big group does not end the walk early.
 */
async function representatives(rt: Runtime, recipientId: string, q: GroupQuery, page: Page) {
  const grouped = groupedTypes(q);
  const ascending = page.minId !== null;
  const found = new Map<string, NotificationRow>();
  const batch = Math.max(page.limit * 4, 100);
  let cursor: string | null = ascending ? page.minId : page.maxId;
  for (;;) {
    let query = browsable(rt.db, recipientId, q).select(COLUMNS);
    if (ascending) {
      if (page.maxId) query = query.where("n.id", "<", page.maxId);
    } else if (page.sinceId) query = query.where("n.id", ">", page.sinceId);
    if (cursor) query = query.where("n.id", ascending ? ">" : "<", cursor);
    const rows = await query
      .orderBy("n.id", ascending ? "asc" : "desc")
      .limit(batch)
      .execute();
    const hidden = await hiddenStatusIds(
      rt,
      recipientId,
      "notifications",
      rows.map((r) => r.status_id),
    );
    for (const row of rows) {
      if (row.status_id !== null && hidden.has(row.status_id)) continue;
      const key = keyOf(row, grouped);
      if (!found.has(key)) found.set(key, row);
      if (found.size === page.limit) break;
    }
    if (found.size === page.limit || rows.length < batch) break;
    cursor = rows[rows.length - 1].id;
  }
  const reps = [...found.entries()].map(([key, row]) => ({ key, row }));
  return { reps: ascending ? reps.reverse() : reps, grouped };
}

/**
 * Counts, newest ids and sample accounts of the grouped keys, up to `upTo` (the page's newest
 * notification) when paging; with `range`, also each group's span within the page. They read what
 * the lists read (`browsable`: blocks, suspensions, visibility). The `hide` filters need no pass
 * here: a group's notifications share its status, so a group whose representative was kept is
 * kept whole.
 */
async function groupData(
  rt: Runtime,
  recipientId: string,
  q: GroupQuery,
  keys: string[],
  upTo: string | null,
  range: { lo: string; hi: string } | null,
) {
  const data = new Map<
    string,
    { count: number; latest: string; samples: string[]; page?: { minId: string; maxId: string } }
  >();
  if (keys.length === 0) return data;
  const inGroups = () => {
    const query = browsable(rt.db, recipientId, q).where("n.group_key", "in", keys);
    return upTo ? query.where("n.id", "<=", upTo) : query;
  };
  const [totals, samples, spans] = await Promise.all([
    inGroups()
      .select(["n.group_key", sql<number>`count(*)`.as("count"), sql<string>`cast(max(n.id) as text)`.as("latest")])
      .groupBy("n.group_key")
      .execute(),
    rt.db
      .selectFrom(
        inGroups()
          .select([
            "n.group_key",
            "n.from_account_id",
            sql<number>`row_number() over (partition by n.group_key order by n.id desc)`.as("rank"),
          ])
          .as("s"),
      )
      .select(["s.group_key", "s.from_account_id"])
      .where("s.rank", "<=", SAMPLE_ACCOUNTS)
      .orderBy("s.rank")
      .execute(),
    range
      ? browsable(rt.db, recipientId, q)
          .where("n.group_key", "in", keys)
          .where("n.id", ">=", range.lo)
          .where("n.id", "<=", range.hi)
          .select([
            "n.group_key",
            sql<string>`cast(min(n.id) as text)`.as("min_id"),
            sql<string>`cast(max(n.id) as text)`.as("max_id"),
          ])
          .groupBy("n.group_key")
          .execute()
      : [],
  ]);
  for (const t of totals) data.set(t.group_key, { count: Number(t.count), latest: String(t.latest), samples: [] });
  for (const s of samples) data.get(s.group_key)?.samples.push(s.from_account_id);
  for (const s of spans) {
    const d = data.get(s.group_key);
    if (d) d.page = { minId: String(s.min_id), maxId: String(s.max_id) };
  }
  return data;
}

async function toGroups(
  rt: Runtime,
  recipientId: string,
  q: GroupQuery,
  reps: { key: string; row: NotificationRow }[],
  grouped: readonly NotificationType[],
  paging: boolean,
): Promise<NotificationGroup[]> {
  if (reps.length === 0) return [];
  const ids = reps.map((r) => BigInt(r.row.id));
  const hi = String(ids.reduce((a, b) => (a > b ? a : b)));
  const lo = String(ids.reduce((a, b) => (a < b ? a : b)));
  const keys = reps.filter((r) => !r.key.startsWith("ungrouped-")).map((r) => r.key);
  const data = await groupData(rt, recipientId, q, keys, paging ? hi : null, paging ? { lo, hi } : null);
  return reps.map(({ key, row }) => {
    const d = grouped.includes(row.type) ? data.get(key) : undefined;
    const span = d?.page ?? { minId: row.id, maxId: row.id };
    return {
      key,
      type: row.type,
      count: d?.count ?? 1,
      mostRecentId: d?.latest ?? row.id,
      sampleAccountIds: d?.samples ?? [row.from_account_id],
      statusId: row.status_id,
      reportId: row.report_id,
      accountWarningId: row.account_warning_id,
      accountSeveranceId: row.account_severance_id,
      page: paging ? { ...span, latestAt: span.maxId === row.id ? row.created_at : idTime(span.maxId) } : null,
    };
  });
}

export interface GroupPage {
  groups: NotificationGroup[];
  /** Cursor for older groups, when the page is full. */
  next: string | null;
  /** Cursor for newer groups. */
  prev: string | null;
}

export async function listGroups(rt: Runtime, recipientId: string, q: GroupQuery, page: Page): Promise<GroupPage> {
  const { reps, grouped } = await representatives(rt, recipientId, q, page);
  const groups = await toGroups(rt, recipientId, q, reps, grouped, true);
  return {
    groups,
    next: reps.length === page.limit ? reps[reps.length - 1].row.id : null,
    prev: reps.length > 0 ? reps[0].row.id : null,
  };
}

/** The notifications of one group key (`ungrouped-<id>` names a single notification). */
function byGroupKey(rt: Runtime, recipientId: string, key: string) {
  const query = browsable(rt.db, recipientId, { includeFiltered: true });
  const single = /^ungrouped-(\d+)$/.exec(key)?.[1];
  if (single === undefined) return query.where("n.group_key", "=", key);
  // Digits that cannot be an id name no notification (and must not reach the database as one).
  return isId(single) ? query.where("n.id", "=", single) : query.where(sql<boolean>`false`);
}

export async function getGroup(rt: Runtime, recipientId: string, key: string): Promise<NotificationGroup | null> {
  const row = await byGroupKey(rt, recipientId, key).select(COLUMNS).orderBy("n.id", "desc").executeTakeFirst();
  if (!row) return null;
  const shownKey = keyOf(row, GROUPABLE);
  const [group] = await toGroups(
    rt,
    recipientId,
    { includeFiltered: true },
    [{ key: shownKey, row }],
    GROUPABLE,
    false,
  );
  return group;
}

/** The accounts behind a group, newest notification first. */
export async function groupAccountIds(rt: Runtime, recipientId: string, key: string, limit: number) {
  const rows = await byGroupKey(rt, recipientId, key)
    .select(["n.id", "n.from_account_id"])
    .orderBy("n.id", "desc")
    .limit(limit)
    .execute();
  return rows.map((r) => r.from_account_id);
}

export async function dismissGroup(rt: Runtime, recipientId: string, key: string): Promise<void> {
  const ids = (await byGroupKey(rt, recipientId, key).select("n.id").execute()).map((r) => r.id);
  if (ids.length === 0) return;
  await rt.db.deleteFrom("notifications").where("account_id", "=", recipientId).where("id", "in", ids).execute();
}

/** How many groups hold notifications newer than the marker, counting at most `limit`. */
export async function unreadGroupCount(rt: Runtime, recipientId: string, q: GroupQuery, limit: number) {
  const since = await lastReadId(rt.db, recipientId);
  const { reps } = await representatives(rt, recipientId, q, {
    minId: since ?? "0",
    maxId: null,
    sinceId: null,
    limit,
  });
  return reps.length;
}
