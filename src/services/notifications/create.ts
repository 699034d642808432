// Creating notification records: the one function every area calls when something should notify a
// local account. It drops what Mastodon's NotifyService drops at creation, and gives each record
// Mastodon's group key so that grouped notifications (/api/v2/notifications) can fold them.

import { sql } from "kysely";
import { unexpired } from "../../db/expiry.ts";
import type { Db } from "../../db/index.ts";
import type { NotificationType } from "../../db/schema.ts";
import { idFloor, idTime, newId } from "../../domain/ids.ts";
import { can, EVERYONE_ID, EVERYONE_POSITION, effectiveRole } from "../../domain/roles.ts";
import type { Runtime } from "../../runtime.ts";
import { publishEvent } from "../../streaming/events.ts";
import { enqueuePush } from "../push/delivery.ts";
import { roleTable } from "../roles/lookup.ts";
import { policyVerdict } from "./policy.ts";
import { recordFilteredNotification } from "./requests.ts";

export type { NotificationType } from "../../db/schema.ts";

declare module "../../jobs/queue.ts" {
  interface JobPayloads {
    /** Tells the recipient's open streams of a notification, once its transaction has committed. */
    "notifications.stream": { accountId: string; id: string };
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
  const { recipientId, fromAccountId, type } = input;
  if (recipientId === fromAccountId && !FROM_SELF_ALLOWED.includes(type)) return null;

  const parties = await db
    .selectFrom("accounts as a")
    .leftJoin("users as u", "u.account_id", "a.id")
    .leftJoin("roles as r", "r.id", "u.role_id")
    .select(["a.id", "a.domain", "a.suspended_at", "a.silenced_at", "a.created_at", "u.id as user_id", "r.position"])
    .where("a.id", "in", [recipientId, fromAccountId])
    .execute();
  const recipient = parties.find((p) => p.id === recipientId);
  const sender = parties.find((p) => p.id === fromAccountId);
  if (!recipient?.user_id || recipient.suspended_at !== null || !sender) return null;

  // Staff hold a role above everyone's; Mastodon compares the roles' positions.
  const rank = (position: number | null) => position ?? EVERYONE_POSITION;
  const senderStaff = sender.user_id !== null && rank(sender.position) > EVERYONE_POSITION;
  const staffMention = type === "mention" && senderStaff && rank(sender.position) > rank(recipient.position);
  const rel = await relationOf(db, recipientId, fromAccountId, sender.domain);
  if (!staffMention && rel.shutOut) return null;

  const statusId = input.statusId ?? null;
  const verdict =
    recipientId === fromAccountId
      ? "accept"
      : await policyVerdict(db, recipientId, {
          type,
          sender: { createdAt: sender.created_at, silenced: sender.silenced_at !== null, staff: senderStaff },
          following: rel.following,
          followerSince: rel.followerSince,
          permitted: rel.permitted,
          unsolicitedPrivateMention:
            type === "mention" && statusId !== null && (await privateMention(db, statusId, recipientId)),
        });
  if (verdict === "drop") return null;

  const id = newId();
  const now = new Date();
  const filtered = verdict === "filter";
  await db
    .insertInto("notifications")
    .values({
      id,
      account_id: recipientId,
      from_account_id: fromAccountId,
      type,
      status_id: statusId,
      report_id: input.reportId ?? null,
      account_warning_id: input.accountWarningId ?? null,
      account_severance_id: input.accountSeveranceId ?? null,
      group_key: await groupKey(db, { id, recipientId, type, statusId, now }),
      filtered,
      created_at: now,
    })
    .execute();
  if (filtered) await recordFilteredNotification(db, { recipientId, fromAccountId, statusId, at: now });
  else {
    await enqueuePush(rt, db, recipientId, id);
    await rt.queue.enqueue("notifications.stream", { accountId: recipientId, id }, {}, db);
  }
  return id;
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

/**
 * How the recipient stands to the sender: shut out (a block, a notification mute, or a domain block
 * of a sender they don't follow), following, followed since when, and accepted from a request.
 */
export async function relationOf(db: Db, recipientId: string, senderId: string, senderDomain: string | null) {
  const row = await db
    .selectNoFrom((eb) => [
      eb
        .exists(
          eb
            .selectFrom("blocks")
            .select("id")
            .where("account_id", "=", recipientId)
            .where("target_account_id", "=", senderId),
        )
        .as("blocking"),
      eb
        .exists(
          eb
            .selectFrom("mutes")
            .select("id")
            .where("account_id", "=", recipientId)
            .where("target_account_id", "=", senderId)
            .where("hide_notifications", "=", true)
            .where(unexpired("mutes.expires_at")),
        )
        .as("muting"),
      eb
        .exists(
          eb
            .selectFrom("account_domain_blocks")
            .select("id")
            .where("account_id", "=", recipientId)
            .where("domain", "=", senderDomain ?? ""),
        )
        .as("domain_blocking"),
      eb
        .exists(
          eb
            .selectFrom("follows")
            .select("id")
            .where("account_id", "=", recipientId)
            .where("target_account_id", "=", senderId),
        )
        .as("following"),
      eb
        .exists(
          eb
            .selectFrom("notification_permissions")
            .select("account_id")
            .where("account_id", "=", recipientId)
            .where("from_account_id", "=", senderId),
        )
        .as("permitted"),
      // The follow's id is a snowflake: it tells when the sender started following.
      eb
        .selectFrom("follows")
        .select(sql<string>`cast(id as text)`.as("id"))
        .where("account_id", "=", senderId)
        .where("target_account_id", "=", recipientId)
        .as("follower_since"),
    ])
    .executeTakeFirstOrThrow();
  // Both databases answer EXISTS as 1/0 or true/false without a declared column type.
  const yes = (v: unknown) => v === true || Number(v) === 1;
  const following = yes(row.following);
  return {
    shutOut: yes(row.blocking) || yes(row.muting) || (senderDomain !== null && yes(row.domain_blocking) && !following),
    following,
    permitted: yes(row.permitted),
    followerSince: row.follower_since ? idTime(String(row.follower_since)) : null,
  };
}

/**
 * Mastodon's key: `favourite-<status>-<hour>`, `reblog-<status>-<hour>` or `follow-<hour>`, where the
 * hour is that of the group's first notification as long as the group spans under twelve hours;
 * anything else is `ungrouped-<id>`.
 */
async function groupKey(
  db: Db,
  n: { id: string; recipientId: string; type: NotificationType; statusId: string | null; now: Date },
): Promise<string> {
  if (!GROUPED.includes(n.type) || (n.type !== "follow" && n.statusId === null)) return `ungrouped-${n.id}`;
  const prefix = n.type === "follow" ? "follow" : `${n.type}-${n.statusId}`;
  const hour = Math.floor(n.now.getTime() / HOUR_MS);
  let q = db
    .selectFrom("notifications")
    .select("group_key")
    .where("account_id", "=", n.recipientId)
    .where("type", "=", n.type)
    .where("filtered", "=", false)
    .where("id", ">", idFloor(new Date(n.now.getTime() - MAXIMUM_GROUP_SPAN_HOURS * HOUR_MS)));
  if (n.statusId !== null && n.type !== "follow") q = q.where("status_id", "=", n.statusId);
  const previous = await q.orderBy("id", "desc").limit(1).executeTakeFirst();
  const previousHour = previous ? Number(previous.group_key.slice(prefix.length + 1)) : Number.NaN;
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
export async function streamNotification(rt: Runtime, n: { accountId: string; id: string }): Promise<void> {
  await publishEvent(rt, "notification.created", n);
}
