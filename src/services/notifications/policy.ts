// A person's notification policy: whether notifications from strangers (accounts they don't follow,
// that don't follow them, brand-new or moderator-limited accounts, unsolicited private mentions) are
// accepted, filtered into notification requests, or dropped. Mastodon's NotificationPolicy and the
// filter conditions of its NotifyService.
import type { Db } from "../../db/index.ts";
import type { NotificationPolicyValue, NotificationType } from "../../db/schema.ts";
import type { Runtime } from "../../runtime.ts";

export const POLICY_VALUES: readonly NotificationPolicyValue[] = ["accept", "filter", "drop"];

export interface NotificationPolicy {
  for_not_following: NotificationPolicyValue;
  for_not_followers: NotificationPolicyValue;
  for_new_accounts: NotificationPolicyValue;
  for_private_mentions: NotificationPolicyValue;
  for_limited_accounts: NotificationPolicyValue;
}

const DEFAULT_POLICY: NotificationPolicy = {
  for_not_following: "accept",
  for_not_followers: "accept",
  for_new_accounts: "accept",
  for_private_mentions: "filter",
  for_limited_accounts: "filter",
};

/** Types that are never filtered: they are about the recipient's own things or duties. */
const NEVER_FILTERED: readonly NotificationType[] = [
  "poll",
  "update",
  "quoted_update",
  "admin.sign_up",
  "admin.report",
  "moderation_warning",
  "severed_relationships",
];

const NEW_ACCOUNT_DAYS = 30;
/** A follower of fewer days than this still counts as a stranger. */
const NEW_FOLLOWER_DAYS = 3;
const DAY_MS = 86_400_000;

export async function getPolicy(db: Db, accountId: string): Promise<NotificationPolicy> {
  return (await getPolicies(db, [accountId])).get(accountId)!;
}

/** The policies of `accountIds`, in one query (the defaults for those who set none). */
export async function getPolicies(db: Db, accountIds: readonly string[]): Promise<Map<string, NotificationPolicy>> {
  const rows = await db
    .selectFrom("notification_policies")
    .select([
      "account_id",
      "for_not_following",
      "for_not_followers",
      "for_new_accounts",
      "for_private_mentions",
      "for_limited_accounts",
    ])
    .where("account_id", "in", [...new Set(accountIds)])
    .execute();
  const policies = new Map<string, NotificationPolicy>(accountIds.map((id) => [id, DEFAULT_POLICY]));
  for (const { account_id, ...policy } of rows) policies.set(account_id, policy);
  return policies;
}

export async function updatePolicy(
  rt: Runtime,
  accountId: string,
  changes: Partial<NotificationPolicy>,
): Promise<NotificationPolicy> {
  const policy = { ...(await getPolicy(rt.db, accountId)), ...changes };
  await rt.db
    .insertInto("notification_policies")
    .values({ account_id: accountId, ...policy })
    .onConflict((oc) => oc.column("account_id").doUpdateSet(policy))
    .execute();
  return policy;
}

/** What the recipient knows of the sender when a notification is about to be recorded. */
export interface Stranger {
  type: NotificationType;
  sender: { createdAt: Date; silenced: boolean; staff: boolean };
  /** The recipient follows the sender. */
  following: boolean;
  /** When the sender started following the recipient, if they do. */
  followerSince: Date | null;
  /** The recipient accepted the sender's notification request earlier. */
  permitted: boolean;
  /** For mentions: the status is direct and does not answer the recipient. */
  unsolicitedPrivateMention: boolean;
}

/**
 * Accept, filter or drop: drop when any condition that holds says so, else filter likewise.
 * `policy` gives the recipient's policy, asked only when a condition holds.
 */
export async function policyVerdict(
  s: Stranger,
  policy: () => Promise<NotificationPolicy>,
): Promise<NotificationPolicyValue> {
  if (NEVER_FILTERED.includes(s.type) || s.permitted || s.sender.staff) return "accept";
  const now = Date.now();
  const conditions: [boolean, keyof NotificationPolicy][] = [
    [s.sender.silenced && !s.following, "for_limited_accounts"],
    [!s.following, "for_not_following"],
    [s.followerSince === null || s.followerSince.getTime() > now - NEW_FOLLOWER_DAYS * DAY_MS, "for_not_followers"],
    [s.sender.createdAt.getTime() > now - NEW_ACCOUNT_DAYS * DAY_MS, "for_new_accounts"],
    [s.unsolicitedPrivateMention && !s.following, "for_private_mentions"],
  ];
  const held = conditions.filter(([holds]) => holds);
  if (held.length === 0) return "accept";
  const chosen = await policy();
  const values = held.map(([, key]) => chosen[key]);
  if (values.includes("drop")) return "drop";
  return values.includes("filter") ? "filter" : "accept";
}
