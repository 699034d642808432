// The Notification entity (v1), the grouped results of v2 (GroupedNotificationsResults), and
// NotificationRequest. (A notification whose status a `hide` filter of the notifications context
// matches is left out by the read path, before the page is cut.)
import type { Runtime } from "../runtime.ts";
import type { AccountView } from "../services/accounts/views.ts";
import type { NotificationGroup } from "../services/notifications/groups.ts";
import type { NotificationRow } from "../services/notifications/read.ts";
import type { NotificationRequestRow } from "../services/notifications/requests.ts";
import type { NotificationViews } from "../services/notifications/views.ts";
import type { StatusView } from "../services/statuses/views.ts";
import { type AccountEntity, renderAccountView, writeAccount } from "./account.ts";
import { renderAccountWarning, renderSeveranceEvent } from "./account_warning.ts";
import { exactInteger, jsonBytes, Writer } from "./json_text.ts";
import { renderReport } from "./report.ts";
import { renderStatus, writeStatus } from "./status.ts";

/** How a notification's account and status are rendered: as objects, or as writers of their JSON. */
interface Nest {
  account: (rt: Runtime, v: AccountView) => unknown;
  status: (rt: Runtime, v: StatusView) => unknown;
}
const asObjects: Nest = { account: renderAccountView, status: (rt, v) => renderStatus(rt, v) };
const asWriters: Nest = {
  account: (rt, v) => new Writer(writeAccount, rt, v),
  status: (rt, v) => new Writer(writeStatus, rt, v),
};

/** Renders each loaded account, status and report once, however many notifications name it. */
function rendered(rt: Runtime, views: NotificationViews, nest: Nest) {
  const once = <V, E>(map: Map<string, V>, render: (view: V) => E) => {
    const out = new Map<string, E>();
    return (id: string): E | undefined => {
      let entity = out.get(id);
      if (entity === undefined) {
        const view = map.get(id);
        if (view === undefined) return undefined;
        entity = render(view);
        out.set(id, entity);
      }
      return entity;
    };
  };
  return {
    account: once(views.accounts, (v) => nest.account(rt, v)),
    status: once(views.statuses, (v) => nest.status(rt, v)),
    report: once(views.reports, (v) => renderReport(rt, v)),
    warning: once(views.warnings, (v) => renderAccountWarning(rt, v)),
    event: once(views.severances, renderSeveranceEvent),
  };
}

export function renderNotifications(
  rt: Runtime,
  rows: NotificationRow[],
  views: NotificationViews,
  nest: Nest = asObjects,
) {
  const r = rendered(rt, views, nest);
  return rows.flatMap((row) => {
    const account = r.account(row.from_account_id);
    // A status or report that is gone takes its notification along.
    const status = row.status_id ? r.status(row.status_id) : null;
    const report = row.report_id ? r.report(row.report_id) : null;
    const warning = row.account_warning_id ? r.warning(row.account_warning_id) : null;
    const event = row.account_severance_id ? r.event(row.account_severance_id) : null;
    if (!account || status === undefined || report === undefined || warning === undefined || event === undefined)
      return [];
    return [
      {
        id: row.id,
        type: row.type,
        created_at: row.created_at.toISOString(),
        group_key: row.group_key,
        account,
        ...(status ? { status } : {}),
        ...(report ? { report } : {}),
        ...(warning ? { moderation_warning: warning } : {}),
        ...(event ? { event } : {}),
      },
    ];
  });
}

/** renderNotifications as JSON bytes. */
export const notificationsJson = (rt: Runtime, rows: NotificationRow[], views: NotificationViews) =>
  jsonBytes((out) => out.compose(renderNotifications(rt, rows, views, asWriters)));

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

function renderGroupedNotifications(
  rt: Runtime,
  groups: NotificationGroup[],
  views: NotificationViews,
  o: { partialAvatars?: boolean } = {},
) {
  const r = rendered(rt, views, asWriters);
  const shown = groups.filter(
    (g) =>
      (g.statusId === null || views.statuses.has(g.statusId)) && (g.reportId === null || views.reports.has(g.reportId)),
  );
  const sampleIds = [...new Set(shown.flatMap((g) => g.sampleAccountIds))];
  const fullIds = o.partialAvatars ? [...new Set(shown.map((g) => g.sampleAccountIds[0]))] : sampleIds;
  const pick = (ids: string[]) => ids.flatMap((id) => r.account(id) ?? []);
  return {
    accounts: pick(fullIds),
    ...(o.partialAvatars
      ? {
          partial_accounts: sampleIds
            .filter((id) => !fullIds.includes(id))
            .flatMap((id) => {
              const view = views.accounts.get(id);
              return view ? [partial(renderAccountView(rt, view))] : [];
            }),
        }
      : {}),
    statuses: [...new Set(shown.flatMap((g) => (g.statusId ? [g.statusId] : [])))].flatMap((id) => r.status(id) ?? []),
    notification_groups: shown.map((g) => ({
      group_key: g.key,
      notifications_count: g.count,
      type: g.type,
      // Mastodon sends it as a JSON number, and apps decode it as an integer.
      most_recent_notification_id: exactInteger(g.mostRecentId),
      ...(g.page
        ? {
            page_min_id: g.page.minId,
            page_max_id: g.page.maxId,
            latest_page_notification_at: g.page.latestAt.toISOString(),
          }
        : {}),
      sample_account_ids: g.sampleAccountIds.filter((id) => views.accounts.has(id)),
      ...(g.statusId ? { status_id: g.statusId } : {}),
      ...(g.reportId ? { report: r.report(g.reportId) } : {}),
      ...(g.accountWarningId ? { moderation_warning: r.warning(g.accountWarningId) } : {}),
      ...(g.accountSeveranceId ? { event: r.event(g.accountSeveranceId) } : {}),
    })),
  };
}

/** GroupedNotificationsResults as JSON bytes. */
export const groupedNotificationsJson = (...args: Parameters<typeof renderGroupedNotifications>) =>
  jsonBytes((out) => out.compose(renderGroupedNotifications(...args)));

export function renderNotificationRequests(rt: Runtime, rows: NotificationRequestRow[], views: NotificationViews) {
  const r = rendered(rt, views, asObjects);
  return rows.flatMap((row) => {
    const account = r.account(row.from_account_id);
    if (!account) return [];
    const lastStatus = row.last_status_id ? r.status(row.last_status_id) : undefined;
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
