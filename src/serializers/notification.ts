// The Notification entity (v1), the grouped results of v2 (GroupedNotificationsResults), and
// NotificationRequest. (A notification whose status a `hide` filter of the notifications context
// matches is left out by the read path, before the page is cut.)
import type { Runtime } from "../runtime.ts";
import type { NotificationGroup } from "../services/notifications/groups.ts";
import type { NotificationRow } from "../services/notifications/read.ts";
import type { NotificationRequestRow } from "../services/notifications/requests.ts";
import { type AccountEntity, renderAccounts } from "./account.ts";
import { renderReports } from "./report.ts";
import { renderStatuses, type StatusEntity } from "./status.ts";

const byId = <T extends { id: string }>(items: T[]) => new Map(items.map((i) => [i.id, i]));

async function statusesFor(rt: Runtime, viewerId: string, ids: (string | null)[]): Promise<Map<string, StatusEntity>> {
  const wanted = [...new Set(ids.filter((id): id is string => id !== null))];
  return byId(await renderStatuses(rt, wanted, { viewerId, context: "notifications" }));
}

const reportsFor = (rt: Runtime, ids: (string | null)[]) =>
  renderReports(rt, [...new Set(ids.filter((id): id is string => id !== null))]);

export async function renderNotifications(rt: Runtime, viewerId: string, rows: NotificationRow[]) {
  const [accounts, statuses, reports] = await Promise.all([
    renderAccounts(rt, [...new Set(rows.map((r) => r.from_account_id))]),
    statusesFor(
      rt,
      viewerId,
      rows.map((r) => r.status_id),
    ),
    reportsFor(
      rt,
      rows.map((r) => r.report_id),
    ),
  ]);
  const accountById = byId(accounts);
  return rows.flatMap((row) => {
    const account = accountById.get(row.from_account_id);
    // A status or report that is gone takes its notification along.
    const status = row.status_id ? statuses.get(row.status_id) : null;
    const report = row.report_id ? reports.get(row.report_id) : null;
    if (!account || status === undefined || report === undefined) return [];
    return [
      {
        id: row.id,
        type: row.type,
        created_at: row.created_at.toISOString(),
        group_key: row.group_key,
        account,
        ...(status ? { status } : {}),
        ...(report ? { report } : {}),
      },
    ];
  });
}

/** The partial account of `expand_accounts=partial_avatars`: enough to draw an avatar. */
const partial = (a: AccountEntity) => ({
  id: a.id,
  acct: a.acct,
  locked: a.locked,
  bot: a.bot,
  url: a.url,
  avatar: a.avatar,
  avatar_static: a.avatar_static,
});

/**
 * Mastodon sends `most_recent_notification_id` as a JSON number, and apps decode it as an integer.
 * Our ids exceed 2^53, so the number is written out digit for digit.
 */
const integer = (id: string): unknown => JSON.rawJSON(id);

declare global {
  interface JSON {
    /** Node 21+: a value JSON.stringify writes out as the given text. */
    rawJSON(text: string): unknown;
  }
}

export async function renderGroupedNotifications(
  rt: Runtime,
  viewerId: string,
  groups: NotificationGroup[],
  o: { partialAvatars?: boolean } = {},
) {
  const [statuses, reports] = await Promise.all([
    statusesFor(
      rt,
      viewerId,
      groups.map((g) => g.statusId),
    ),
    reportsFor(
      rt,
      groups.map((g) => g.reportId),
    ),
  ]);
  const shown = groups.filter(
    (g) => (g.statusId === null || statuses.has(g.statusId)) && (g.reportId === null || reports.has(g.reportId)),
  );
  const sampleIds = [...new Set(shown.flatMap((g) => g.sampleAccountIds))];
  const fullIds = o.partialAvatars ? [...new Set(shown.map((g) => g.sampleAccountIds[0]))] : sampleIds;
  const rendered = byId(await renderAccounts(rt, sampleIds));
  const pick = (ids: string[]) => ids.flatMap((id) => rendered.get(id) ?? []);
  return {
    accounts: pick(fullIds),
    ...(o.partialAvatars
      ? { partial_accounts: pick(sampleIds.filter((id) => !fullIds.includes(id))).map(partial) }
      : {}),
    statuses: [...new Set(shown.flatMap((g) => (g.statusId ? [g.statusId] : [])))].flatMap(
      (id) => statuses.get(id) ?? [],
    ),
    notification_groups: shown.map((g) => ({
      group_key: g.key,
      notifications_count: g.count,
      type: g.type,
      most_recent_notification_id: integer(g.mostRecentId),
      ...(g.page
        ? {
            page_min_id: g.page.minId,
            page_max_id: g.page.maxId,
            latest_page_notification_at: g.page.latestAt.toISOString(),
          }
        : {}),
      sample_account_ids: g.sampleAccountIds.filter((id) => rendered.has(id)),
      ...(g.statusId ? { status_id: g.statusId } : {}),
      ...(g.reportId ? { report: reports.get(g.reportId) } : {}),
    })),
  };
}

export async function renderNotificationRequests(rt: Runtime, viewerId: string, rows: NotificationRequestRow[]) {
  const [accounts, statuses] = await Promise.all([
    renderAccounts(rt, [...new Set(rows.map((r) => r.from_account_id))]),
    statusesFor(
      rt,
      viewerId,
      rows.map((r) => r.last_status_id),
    ),
  ]);
  const accountById = byId(accounts);
  return rows.flatMap((row) => {
    const account = accountById.get(row.from_account_id);
    if (!account) return [];
    const lastStatus = row.last_status_id ? statuses.get(row.last_status_id) : undefined;
    return [
      {
        id: row.id,
        created_at: row.created_at.toISOString(),
        updated_at: row.updated_at.toISOString(),
        account,
        notifications_count: String(row.notifications_count),
        ...(lastStatus ? { last_status: lastStatus } : {}),
      },
    ];
  });
}
