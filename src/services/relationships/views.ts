// How a viewer stands with each of a list of accounts, loaded in batch: one query per kind of
// relation whatever the number of accounts. The Relationship serializer renders it.
import { unexpired } from "../../db/expiry.ts";
import { isId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";

/** The options of a follow or of a pending request. */
export interface FollowOptions {
  show_reblogs: boolean;
  notify: boolean;
  languages: string[] | null;
}

export interface RelationshipView {
  id: string;
  follow: FollowOptions | null;
  request: FollowOptions | null;
  followedBy: boolean;
  requestedBy: boolean;
  blocking: boolean;
  blockedBy: boolean;
  mute: { hide_notifications: boolean; expires_at: Date | null } | null;
  domainBlocking: boolean;
  endorsed: boolean;
  note: string;
}

export interface RelationshipOptions {
  /** Include suspended accounts (left out by default, as Mastodon's `with_suspended=false`). */
  withSuspended?: boolean;
}

/**
 * Relationships of `viewerId` with `ids`, in the order given, once per account; ids of accounts
 * that do not exist (or are suspended, unless asked for) are left out.
 */
export async function loadRelationshipViews(
  rt: Runtime,
  viewerId: string,
  ids: readonly string[],
  options: RelationshipOptions = {},
): Promise<RelationshipView[]> {
  // Anything that is not one of our ids names no account (and must not reach a bigint column).
  const unique = [...new Set(ids.filter(isId))];
  if (unique.length === 0) return [];
  const db = rt.db;
  let accountsQuery = db.selectFrom("accounts").select(["id", "domain"]).where("id", "in", unique);
  if (!options.withSuspended) accountsQuery = accountsQuery.where("suspended_at", "is", null);
  const accounts = await accountsQuery.execute();
  if (accounts.length === 0) return [];
  const targets = accounts.map((a) => a.id);
  const domains = [...new Set(accounts.map((a) => a.domain).filter((d): d is string => d !== null))];

  const outgoing = (table: "follows" | "follow_requests") =>
    db
      .selectFrom(table)
      .select(["target_account_id", "show_reblogs", "notify", "languages"])
      .where("account_id", "=", viewerId)
      .where("target_account_id", "in", targets)
      .execute();
  const incoming = (table: "follows" | "follow_requests" | "blocks") =>
    db
      .selectFrom(table)
      .select("account_id")
      .where("target_account_id", "=", viewerId)
      .where("account_id", "in", targets)
      .execute();
  const targetsOf = (table: "blocks" | "account_pins") =>
    db
      .selectFrom(table)
      .select("target_account_id")
      .where("account_id", "=", viewerId)
      .where("target_account_id", "in", targets)
      .execute();

  const [following, requested, followedBy, requestedBy, blocking, blockedBy, mutes, endorsed, notes, domainBlocks] =
    await Promise.all([
      outgoing("follows"),
      outgoing("follow_requests"),
      incoming("follows"),
      incoming("follow_requests"),
      targetsOf("blocks"),
      incoming("blocks"),
      db
        .selectFrom("mutes")
        .select(["target_account_id", "hide_notifications", "expires_at"])
        .where("account_id", "=", viewerId)
        .where("target_account_id", "in", targets)
        .where(unexpired("expires_at"))
        .execute(),
      targetsOf("account_pins"),
      db
        .selectFrom("account_notes")
        .select(["target_account_id", "comment"])
        .where("account_id", "=", viewerId)
        .where("target_account_id", "in", targets)
        .execute(),
      domains.length === 0
        ? Promise.resolve([])
        : db
            .selectFrom("account_domain_blocks")
            .select("domain")
            .where("account_id", "=", viewerId)
            .where("domain", "in", domains)
            .execute(),
    ]);

  const byTarget = <T extends { target_account_id: string }>(rows: T[]) =>
    new Map(rows.map((r) => [r.target_account_id, r]));
  const accountIds = (rows: { account_id: string }[]) => new Set(rows.map((r) => r.account_id));
  const targetIds = (rows: { target_account_id: string }[]) => new Set(rows.map((r) => r.target_account_id));
  const followMap = byTarget(following);
  const requestMap = byTarget(requested);
  const muteMap = byTarget(mutes);
  const noteMap = byTarget(notes);
  const followers = accountIds(followedBy);
  const requesters = accountIds(requestedBy);
  const blockers = accountIds(blockedBy);
  const blocked = targetIds(blocking);
  const pinned = targetIds(endorsed);
  const blockedDomains = new Set(domainBlocks.map((d) => d.domain));
  const domainOf = new Map(accounts.map((a) => [a.id, a.domain]));

  return unique
    .filter((id) => domainOf.has(id))
    .map((id) => {
      const domain = domainOf.get(id);
      return {
        id,
        follow: followMap.get(id) ?? null,
        request: requestMap.get(id) ?? null,
        followedBy: followers.has(id),
        requestedBy: requesters.has(id),
        blocking: blocked.has(id),
        blockedBy: blockers.has(id),
        mute: muteMap.get(id) ?? null,
        domainBlocking: domain ? blockedDomains.has(domain) : false,
        endorsed: pinned.has(id),
        note: noteMap.get(id)?.comment ?? "",
      };
    });
}

/** The relationship with one account that exists (after an action on it). */
export async function loadRelationshipView(rt: Runtime, viewerId: string, id: string): Promise<RelationshipView> {
  const [view] = await loadRelationshipViews(rt, viewerId, [id], { withSuspended: true });
  return view;
}
