// Creating notification records: the one function every area calls when something should notify a
// local account. It drops what Mastodon's NotifyService drops at creation, and gives each record
// Mastodon's group key so that grouped notifications (/api/v2/notifications) can fold them.

import { type Insertable, sql } from "kysely";
import { unexpired } from "../../db/expiry.ts";
import type { Db } from "../../db/index.ts";
import type { NotificationsTable, NotificationType } from "../../db/schema.ts";
import { idFloor, idTime, newId } from "../../domain/ids.ts";
import { can, EVERYONE_ID, EVERYONE_POSITION, effectiveRole } from "../../domain/roles.ts";
import type { JobPayloads } from "../../jobs/queue.ts";
import type { Runtime } from "../../runtime.ts";
import { publishEvent } from "../../streaming/events.ts";
import { enqueuePushes } from "../push/delivery.ts";
import { roleTable } from "../roles/lookup.ts";
import { getPolicies, type NotificationPolicy, policyVerdict } from "./policy.ts";
import { recordFilteredNotification } from "./requests.ts";

export type { NotificationType } from "../../db/schema.ts";

declare module "../../jobs/queue.ts" {
  interface JobPayloads {
    /** Tells the recipient's open streams of a notification, once its transaction has committed. */
    "notifications.stream": { accountId: string; id: string } | { notifications: { accountId: string; id: string }[] };
  }
}

export interface NewNotification {
  recipientId: string;
  fromAccountId: string;
  type: NotificationType;
  statusId?: string | null;
  reportId?: string | null;
  accountWarningId?: string | null;
  accountSeveranceId?: string | null;
}

/** Types an account may receive about its own actions (its poll ended, a moderator warned it…). */
const FROM_SELF_ALLOWED: readonly NotificationType[] = ["poll", "severed_relationships", "moderation_warning"];

/** Types that fold into groups; every other notification is a group of its own. */
const GROUPED: readonly NotificationType[] = ["favourite", "reblog", "follow"];
/** A group keeps absorbing new notifications while it spans less than this. */
const MAXIMUM_GROUP_SPAN_HOURS = 12;
const HOUR_MS = 3_600_000;

/**
 * Records a notification inside the caller's transaction `db`. Returns its id, or null when none is
 * due: the recipient is not a local, active account; it would notify itself; the recipient blocks
 * the sender, mutes the sender's notifications, or blocks the sender's domain without following the
 * sender; or the recipient's notification policy drops it. Mentions from staff who outrank the
 * recipient get through regardless. A notification the policy filters is recorded as filtered and
 * lands in the sender's notification request; any other enqueues its push, in the same transaction.
 */
export async function notify(rt: Runtime, db: Db, input: NewNotification): Promise<string | null> {
  const [id] = await notifyMany(rt, db, [input]);
  return id;
}

/**
 * Records notifications of one type from one sender (an import's follows: thousands at once) as
 * notify does each, with the lookups, the inserts, the pushes and the streaming in batches. Returns
 * each one's id, or null, in order.
 */
export async function notifyMany(rt: Runtime, db: Db, inputs: NewNotification[]): Promise<(string | null)[]> {
  if (inputs.length === 0) return [];
  const { fromAccountId, type } = inputs[0];
  if (inputs.some((n) => n.fromAccountId !== fromAccountId || n.type !== type)) {
    throw new Error("notifyMany takes notifications of one type from one sender");
  }
  const ids: (string | null)[] = inputs.map(() => null);
  const wanted = inputs.filter((n) => n.recipientId !== fromAccountId || FROM_SELF_ALLOWED.includes(type));
  if (wanted.length === 0) return ids;

  const parties = await db
    .selectFrom("accounts as a")
    .leftJoin("users as u", "u.account_id", "a.id")
    .leftJoin("roles as r", "r.id", "u.role_id")
    .select(["a.id", "a.domain", "a.suspended_at", "a.silenced_at", "a.created_at", "u.id as user_id", "r.position"])
    .where("a.id", "in", [...new Set([fromAccountId, ...wanted.map((n) => n.recipientId)])])
    .execute();
  const byId = new Map(parties.map((p) => [p.id, p]));
  const sender = byId.get(fromAccountId);
  if (!sender) return ids;
  const recipientIds = [...new Set(wanted.map((n) => n.recipientId))];
  const relations = await relationsOf(db, recipientIds, fromAccountId, sender.domain);
  let policies: Promise<Map<string, NotificationPolicy>> | null = null;
  const policyOf = async (recipientId: string) => {
    policies ??= getPolicies(db, recipientIds);
    return (await policies).get(recipientId)!;
  };

  // Staff hold a role above everyone's; Mastodon compares the roles' positions.
  const rank = (position: number | null) => position ?? EVERYONE_POSITION;
  const senderStaff = sender.user_id !== null && rank(sender.position) > EVERYONE_POSITION;
  const now = new Date();
  const rows: Insertable<NotificationsTable>[] = [];
  // The newest key of each group, by recipient and status: what the batch's notifications continue.
  const keys = new Map<string, string>();
  const statusIds = new Set(wanted.filter((n) => grouped(type, n.statusId ?? null)).map((n) => n.statusId ?? null));
  for (const statusId of statusIds) {
    const ofStatus = wanted.filter((n) => (n.statusId ?? null) === statusId).map((n) => n.recipientId);
    const last = await lastGroupKeys(db, { type, statusId, recipientIds: [...new Set(ofStatus)], now });
    for (const [recipientId, key] of last) keys.set(`${recipientId}\n${type === "follow" ? null : statusId}`, key);
  }
  for (const [i, input] of inputs.entries()) {
    const { recipientId } = input;
    if (recipientId === fromAccountId && !FROM_SELF_ALLOWED.includes(type)) continue;
    const recipient = byId.get(recipientId);
    if (!recipient?.user_id || recipient.suspended_at !== null) continue;
    const staffMention = type === "mention" && senderStaff && rank(sender.position) > rank(recipient.position);
    const rel = relations.get(recipientId)!;
    if (!staffMention && rel.shutOut) continue;

    const statusId = input.statusId ?? null;
    const verdict =
      recipientId === fromAccountId
        ? "accept"
        : await policyVerdict(
            {
              type,
              sender: { createdAt: sender.created_at, silenced: sender.silenced_at !== null, staff: senderStaff },
              following: rel.following,
              followerSince: rel.followerSince,
              permitted: rel.permitted,
              unsolicitedPrivateMention:
                type === "mention" && statusId !== null && (await privateMention(db, statusId, recipientId)),
            },
            () => policyOf(recipientId),
          );
    if (verdict === "drop") continue;

    const id = newId();
    const group = `${recipientId}\n${type === "follow" ? null : statusId}`;
    const key = groupKey({ id, type, statusId, now }, keys.get(group));
    keys.set(group, key);
    ids[i] = id;
    rows.push({
      id,
      account_id: recipientId,
      from_account_id: fromAccountId,
      type,
      status_id: statusId,
      report_id: input.reportId ?? null,
      account_warning_id: input.accountWarningId ?? null,
      account_severance_id: input.accountSeveranceId ?? null,
      group_key: key,
      filtered: verdict === "filter",
      created_at: now,
    });
  }
  if (rows.length === 0) return ids;
  await db.insertInto("notifications").values(rows).execute();
  const shown: { accountId: string; id: string }[] = [];
  for (const row of rows) {
    if (row.filtered) {
      await recordFilteredNotification(db, {
        recipientId: row.account_id,
        fromAccountId,
        statusId: row.status_id ?? null,
        at: now,
      });
    } else shown.push({ accountId: row.account_id, id: row.id });
  }
  if (shown.length > 0) {
    await enqueuePushes(rt, db, shown);
    await rt.queue.enqueue("notifications.stream", shown.length === 1 ? shown[0] : { notifications: shown }, {}, db);
  }
  return ids;
}

/**
 * Notifies the staff who look after users (`admin.sign_up`: someone confirmed a new account) or
 * reports (`admin.report`): every user whose role may manage them (as Mastodon), whose account is active.
 */
export async function notifyStaff(
  rt: Runtime,
  n: { fromAccountId: string; type: "admin.sign_up" | "admin.report"; reportId?: string },
): Promise<void> {
  const table = await roleTable(rt);
  const permission = n.type === "admin.sign_up" ? "manageUsers" : "manageReports";
  const roleIds = [...table.byId.values()]
    .filter((r) => r.id !== EVERYONE_ID && can(effectiveRole(r, table.everyone), permission))
    .map((r) => r.id);
  if (roleIds.length === 0) return;
  await rt.db.transaction().execute(async (trx) => {
    const staff = await trx
      .selectFrom("users")
      .select("account_id")
      .where("role_id", "in", roleIds)
      .where("disabled", "=", false)
      .execute();
    for (const { account_id } of staff) {
      await notify(rt, trx, {
        recipientId: account_id,
        fromAccountId: n.fromAccountId,
        type: n.type,
        reportId: n.reportId,
      });
    }
  });
}

/** A direct status that does not answer the recipient: an unsolicited private mention. */
async function privateMention(db: Db, statusId: string, recipientId: string): Promise<boolean> {
  const s = await db
    .selectFrom("statuses")
    .select(["visibility", "in_reply_to_account_id"])
    .where("id", "=", statusId)
    .executeTakeFirst();
  return s?.visibility === "direct" && s.in_reply_to_account_id !== recipientId;
}

/** How a recipient stands to a sender (relationsOf). */
export interface Relation {
  /** A block, a notification mute, or a domain block of a sender they don't follow. */
  shutOut: boolean;
  following: boolean;
  /** When the sender started following the recipient, if they do. */
  followerSince: Date | null;
  /** The recipient accepted a notification request of the sender. */
  permitted: boolean;
}

/** How the recipient stands to the sender. */
export async function relationOf(db: Db, recipientId: string, senderId: string, senderDomain: string | null) {
  return (await relationsOf(db, [recipientId], senderId, senderDomain)).get(recipientId)!;
}

/** How each of `recipientIds` stands to the sender, in one query. */
export async function relationsOf(
  db: Db,
  recipientIds: string[],
  senderId: string,
  senderDomain: string | null,
): Promise<Map<string, Relation>> {
  const ids = [...new Set(recipientIds)];
  const fact = (kind: string) => [sql<string>`${sql.lit(kind)}`.as("kind"), sql<string | null>`null`.as("since")];
  const recipient = sql<string>`cast(account_id as text)`.as("recipient");
  const facts = await db
    .selectFrom("blocks")
    .select([recipient, ...fact("blocking")])
    .where("account_id", "in", ids)
    .where("target_account_id", "=", senderId)
    .unionAll(
      db
        .selectFrom("mutes")
        .select([recipient, ...fact("muting")])
        .where("account_id", "in", ids)
        .where("target_account_id", "=", senderId)
        .where("hide_notifications", "=", true)
        .where(unexpired("mutes.expires_at")),
    )
    .unionAll(
      db
        .selectFrom("account_domain_blocks")
        .select([recipient, ...fact("domain_blocking")])
        .where("account_id", "in", ids)
        .where("domain", "=", senderDomain ?? ""),
    )
    .unionAll(
      db
        .selectFrom("follows")
        .select([recipient, ...fact("following")])
        .where("account_id", "in", ids)
        .where("target_account_id", "=", senderId),
    )
    .unionAll(
      db
        .selectFrom("notification_permissions")
        .select([recipient, ...fact("permitted")])
        .where("account_id", "in", ids)
        .where("from_account_id", "=", senderId),
    )
    // The follow's id is a snowflake: it tells when the sender started following.
    .unionAll(
      db
        .selectFrom("follows")
        .select([
          sql<string>`cast(target_account_id as text)`.as("recipient"),
          sql<string>`${sql.lit("follower")}`.as("kind"),
          sql<string | null>`cast(id as text)`.as("since"),
        ])
        .where("account_id", "=", senderId)
        .where("target_account_id", "in", ids),
    )
    .execute();
  const kinds = new Map(ids.map((id) => [id, new Map<string, string | null>()]));
  for (const f of facts) kinds.get(String(f.recipient))?.set(f.kind, f.since);
  return new Map(
    ids.map((id) => {
      const k = kinds.get(id)!;
      const following = k.has("following");
      const since = k.get("follower");
      return [
        id,
        {
          shutOut:
            k.has("blocking") || k.has("muting") || (senderDomain !== null && k.has("domain_blocking") && !following),
          following,
          permitted: k.has("permitted"),
          followerSince: since ? idTime(String(since)) : null,
        },
      ];
    }),
  );
}

/** Whether notifications of `type` (about `statusId`) fold into groups. */
const grouped = (type: NotificationType, statusId: string | null) =>
  GROUPED.includes(type) && (type === "follow" || statusId !== null);

/**
 * The key of each recipient's newest notification of `type` (about `statusId`, unless a follow)
 * from the last MAXIMUM_GROUP_SPAN_HOURS, by recipient, in one query.
 */
async function lastGroupKeys(
  db: Db,
  n: { type: NotificationType; statusId: string | null; recipientIds: string[]; now: Date },
): Promise<Map<string, string>> {
  const floor = idFloor(new Date(n.now.getTime() - MAXIMUM_GROUP_SPAN_HOURS * HOUR_MS));
  const rows = await db
    .selectFrom("accounts as a")
    .select((eb) => [
      "a.id",
      eb
        .selectFrom("notifications as n")
        .select("n.group_key")
        .whereRef("n.account_id", "=", "a.id")
        .where("n.type", "=", n.type)
        .where("n.filtered", "=", false)
        .where("n.id", ">", floor)
        .$if(n.type !== "follow", (q) => q.where("n.status_id", "=", n.statusId))
        .orderBy("n.id", "desc")
        .limit(1)
        .as("group_key"),
    ])
    .where("a.id", "in", n.recipientIds)
    .execute();
  return new Map(rows.flatMap((r) => (r.group_key ? [[r.id, r.group_key] as const] : [])));
}

/**
 * Mastodon's key: `favourite-<status>-<hour>`, `reblog-<status>-<hour>` or `follow-<hour>`, where the
 * hour is that of the group's first notification as long as the group spans under twelve hours
 * (`previous`: the key of the group's newest notification); anything else is `ungrouped-<id>`.
 */
function groupKey(
  n: { id: string; type: NotificationType; statusId: string | null; now: Date },
  previous: string | undefined,
): string {
  if (!grouped(n.type, n.statusId)) return `ungrouped-${n.id}`;
  const prefix = n.type === "follow" ? "follow" : `${n.type}-${n.statusId}`;
  const hour = Math.floor(n.now.getTime() / HOUR_MS);
  const previousHour = previous ? Number(previous.slice(prefix.length + 1)) : Number.NaN;
  const bucket = previousHour + MAXIMUM_GROUP_SPAN_HOURS > hour ? previousHour : hour;
  return `${prefix}-${bucket}`;
}

/**
 * Removes the notifications an undone action caused (an unfollow takes its `follow` notification
 * with it, a withdrawn request its `follow_request`), as Mastodon destroys a notification with its
 * activity.
 */
export async function withdrawNotifications(
  db: Db,
  input: { recipientId: string; fromAccountId: string; types: readonly NotificationType[] },
): Promise<void> {
  await db
    .deleteFrom("notifications")
    .where("account_id", "=", input.recipientId)
    .where("from_account_id", "=", input.fromAccountId)
    .where("type", "in", input.types)
    .execute();
}

/** Job: see "notifications.stream". */
export async function streamNotification(rt: Runtime, job: JobPayloads["notifications.stream"]): Promise<void> {
  for (const n of "notifications" in job ? job.notifications : [job]) {
    await publishEvent(rt, "notification.created", { accountId: n.accountId, id: n.id });
  }
}
