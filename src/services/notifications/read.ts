// Reading one's notifications (/api/v1/notifications): the browsable ones, by type and sender, paged
// by id; one, dismissing one, clearing all; and the unread count against the notifications marker.
import { sql } from "kysely";
import type { Db } from "../../db/index.ts";
import { type Page, type PageResult, paginate } from "../../db/paginate.ts";
import { NOTIFICATION_TYPES, type NotificationType } from "../../db/schema.ts";
import { notFound } from "../../domain/errors.ts";
import type { Runtime } from "../../runtime.ts";
import { pageWithoutHidden } from "../filters/hidden.ts";
import { viewerValue, visibleStatusId } from "../visibility/sql.ts";

export interface NotificationQuery {
  /** Only these types (unknown ones are ignored); all when absent. */
  types?: readonly string[];
  excludeTypes?: readonly string[];
  /** Only notifications from this account (filtered ones included, as Mastodon does). */
  fromAccountId?: string | null;
  /** Include notifications the recipient's policy filtered. */
  includeFiltered?: boolean;
}

export interface NotificationRow {
  id: string;
  type: NotificationType;
  group_key: string;
  from_account_id: string;
  status_id: string | null;
  report_id: string | null;
  account_warning_id: string | null;
  account_severance_id: string | null;
  created_at: Date;
}

/** The types a query asks for, after Mastodon's rules; null when it asks for all of them. */
function requestedTypes(q: NotificationQuery): NotificationType[] | null {
  const known = (list: readonly string[]) => NOTIFICATION_TYPES.filter((t) => list.includes(t));
  const asked = q.types && q.types.length > 0 ? known(q.types) : [...NOTIFICATION_TYPES];
  const excluded = q.excludeTypes ?? [];
  const types = asked.filter((t) => !excluded.includes(t));
  return types.length === NOTIFICATION_TYPES.length ? null : types;
}

/**
 * The recipient's notifications a query may show: never those from suspended accounts, from accounts
 * or domains the recipient blocks (Mastodon deletes those on blocking; this read does not wait for
 * it), nor those about a status the recipient may not see now (whatever clean-up has or has not run
 * since). Lists, group counts and group samples all read through this.
 */
export function browsable(db: Db, recipientId: string, q: NotificationQuery) {
  let query = db
    .selectFrom("notifications as n")
    .innerJoin("accounts as a", "a.id", "n.from_account_id")
    .where("n.account_id", "=", recipientId)
    .where("a.suspended_at", "is", null)
    .where(sql<boolean>`not exists (select 1 from blocks nb
      where nb.account_id = ${recipientId} and nb.target_account_id = n.from_account_id)`)
    .where(sql<boolean>`(a.domain is null or not exists (select 1 from account_domain_blocks nd
      where nd.account_id = ${recipientId} and nd.domain = a.domain))`)
    .where((eb) =>
      eb.or([eb("n.status_id", "is", null), visibleStatusId(viewerValue(recipientId), sql.ref("n.status_id"))]),
    );
  if (q.fromAccountId) query = query.where("n.from_account_id", "=", q.fromAccountId);
  else if (!q.includeFiltered) query = query.where("n.filtered", "=", false);
  const types = requestedTypes(q);
  if (types !== null) query = types.length > 0 ? query.where("n.type", "in", types) : query.where(sql<boolean>`1 = 0`);
  return query;
}

export const COLUMNS = [
  "n.id",
  "n.type",
  "n.group_key",
  "n.from_account_id",
  "n.status_id",
  "n.report_id",
  "n.account_warning_id",
  "n.account_severance_id",
  "n.created_at",
] as const;

/** A page of notifications, without those about statuses the recipient's `hide` filters leave out. */
export function listNotifications(
  rt: Runtime,
  recipientId: string,
  q: NotificationQuery,
  page: Page,
): Promise<PageResult<NotificationRow>> {
  return pageWithoutHidden(
    rt,
    recipientId,
    "notifications",
    page,
    (p) => paginate(browsable(rt.db, recipientId, q).select(COLUMNS), "n.id", p),
    (n) => n.status_id,
    (n) => n.id,
  );
}

export async function getNotification(rt: Runtime, recipientId: string, id: string): Promise<NotificationRow> {
  const row = await browsable(rt.db, recipientId, { includeFiltered: true })
    .select(COLUMNS)
    .where("n.id", "=", id)
    .executeTakeFirst();
  if (!row) throw notFound();
  return row;
}

export async function dismissNotification(rt: Runtime, recipientId: string, id: string): Promise<void> {
  const result = await rt.db
    .deleteFrom("notifications")
    .where("account_id", "=", recipientId)
    .where("id", "=", id)
    .executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) throw notFound();
}

export async function clearNotifications(rt: Runtime, recipientId: string): Promise<void> {
  await rt.db.deleteFrom("notifications").where("account_id", "=", recipientId).execute();
}

/** The id of the last notification the person read in any of their apps (the notifications marker). */
export async function lastReadId(db: Db, accountId: string): Promise<string | null> {
  const marker = await db
    .selectFrom("markers")
    .select("last_read_id")
    .where("account_id", "=", accountId)
    .where("timeline", "=", "notifications")
    .executeTakeFirst();
  return marker?.last_read_id ?? null;
}

/** How many notifications are newer than the marker, counting at most `limit`. */
export async function unreadCount(rt: Runtime, recipientId: string, q: NotificationQuery, limit: number) {
  const since = await lastReadId(rt.db, recipientId);
  let unread = browsable(rt.db, recipientId, q).select("n.id");
  if (since) unread = unread.where("n.id", ">", since);
  const row = await rt.db
    .selectFrom(unread.limit(limit).as("u"))
    .select(sql<number>`count(*)`.as("count"))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
