// Following: direct follows and follow requests, accepting and rejecting them, and the lists of who
// follows whom. Mastodon's FollowService, UnfollowService, RemoveFromFollowersService,
// AuthorizeFollowService and RejectFollowService, and the follower/following list controllers.
import type { Db } from "../../db/index.ts";
import { type AccountPage, type Page, paginate } from "../../db/paginate.ts";
import { domainAndParents } from "../../domain/domain_names.ts";
import { type ApiError, forbidden, notFound, unprocessable } from "../../domain/errors.ts";
import { isId, newId } from "../../domain/ids.ts";
import { isLanguage } from "../../domain/languages.ts";
import type { Runtime } from "../../runtime.ts";
import { federate } from "../federation/outbox.ts";
import { notify, notifyMany } from "../notifications/create.ts";
import {
  deleteFollow,
  deleteFollowRequest,
  type FollowOptions,
  insertFollow,
  insertFollowRequest,
  insertFollows,
  type Pair,
  updateFollowOptions,
} from "./follow_graph.ts";
import { hiddenAccountIds } from "./hidden_accounts.ts";
import { isRemote, type RelationshipParty, relationshipParties, requireAccount } from "./targets.ts";

export type { FollowOptions } from "./follow_graph.ts";

/**
 * Whether a follow must wait for the target's answer: the target approves followers by hand, the
 * follower is silenced (its follows never take effect unasked), or the target lives on another
 * server, which answers with an Accept later. This is the one place that decides it.
 */
function followNeedsApproval(source: RelationshipParty, target: RelationshipParty): boolean {
  return target.locked || source.silenced_at !== null || isRemote(target);
}

/**
 * Follows `targetId`, or asks to. Following (or having asked to follow) an account again changes
 * the options given and nothing else.
 */
export async function follow(rt: Runtime, sourceId: string, targetId: string, options: FollowOptions): Promise<void> {
  const [refusal] = await followMany(rt, sourceId, [{ targetId, options }]);
  if (refusal) throw refusal;
}

export interface FollowItem {
  targetId: string;
  options: FollowOptions;
}

/**
 * Follows each item's target, or asks to, as `follow` does one after the other, with the lookups,
 * the new follows, their counters and the merge into the home feed done in batches (an import
 * follows thousands). Returns, in the items' order, null for each done and the error of each
 * refused. Requests (locked or remote targets) still go one by one: each is its own Follow.
 */
export async function followMany(
  rt: Runtime,
  sourceId: string,
  items: readonly FollowItem[],
): Promise<(ApiError | null)[]> {
  const parties = await relationshipParties(rt.db, [sourceId, ...items.map((i) => i.targetId)]);
  const refusals = items.map(({ targetId, options }): ApiError | null => {
    if (!parties.has(targetId)) return notFound();
    if (targetId === sourceId) return forbidden("Following your own account is not allowed");
    if (options.languages?.some((code) => !isLanguage(code))) {
      return unprocessable("Validation failed: Languages is invalid");
    }
    return null;
  });
  const source = parties.get(sourceId);
  if (!source) throw notFound();
  const open = items.filter((_, i) => refusals[i] === null);
  if (open.length === 0) return refusals;
  const targetIds = [...new Set(open.map((i) => i.targetId))];
  await rt.db.transaction().execute(async (trx) => {
    const refused = await refusedTargets(
      trx,
      source,
      targetIds.map((id) => parties.get(id)!),
    );
    const followed = await pairsOf(trx, "follows", sourceId, targetIds);
    const requested = await pairsOf(trx, "follow_requests", sourceId, targetIds);
    // New direct follows, by target: a target named twice takes the options of both, the later winning.
    const direct = new Map<string, FollowOptions>();
    for (const [i, item] of items.entries()) {
      if (refusals[i] !== null) continue;
      const target = parties.get(item.targetId)!;
      const pair = { sourceId, targetId: target.id };
      if (refused.has(target.id)) refusals[i] = forbidden();
      else if (followed.has(target.id)) await updateFollowOptions(trx, "follows", pair, item.options);
      else if (requested.has(target.id)) await updateFollowOptions(trx, "follow_requests", pair, item.options);
      else if (followNeedsApproval(source, target)) {
        // The Follow's id, which the other server's Accept names.
        const followUri = isRemote(target) ? await newFollowUri(trx, sourceId) : null;
        if (await insertFollowRequest(trx, pair, item.options, followUri)) {
          await notify(rt, trx, { recipientId: target.id, fromAccountId: sourceId, type: "follow_request" });
          const activity = { type: "Follow", accountId: sourceId, targetId: target.id, followUri } as const;
          await federate(rt, trx, sourceId, activity, [target.id]);
        }
        requested.add(target.id);
      } else direct.set(target.id, { ...direct.get(target.id), ...definedOptions(item.options) });
    }
    const follows = [...direct].map(([targetId, options]) => ({ targetId, options }));
    const inserted = await insertFollows(rt, trx, sourceId, follows);
    await notifyMany(
      rt,
      trx,
      inserted.map((recipientId) => ({ recipientId, fromAccountId: sourceId, type: "follow" })),
    );
  });
  return refusals;
}

const definedOptions = (o: FollowOptions): FollowOptions =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

async function newFollowUri(db: Db, sourceId: string): Promise<string> {
  const source = await db.selectFrom("accounts").select("uri").where("id", "=", sourceId).executeTakeFirstOrThrow();
  return `${source.uri}#follows/${newId()}`;
}

/** The id of the Follow behind a follow or a request, when it was federated. */
async function followUriOf(db: Db, pair: Pair): Promise<string | null> {
  for (const table of ["follows", "follow_requests"] as const) {
    const row = await db
      .selectFrom(table)
      .select("uri")
      .where("account_id", "=", pair.sourceId)
      .where("target_account_id", "=", pair.targetId)
      .executeTakeFirst();
    if (row) return row.uri;
  }
  return null;
}

/**
 * The targets `source` may not follow: blocks either way, a moved target, or a blocked domain: the
 * target's (by the follower or by this server), or the follower's by the target (a remote Follow,
 * refused as Mastodon does).
 */
async function refusedTargets(db: Db, source: RelationshipParty, targets: RelationshipParty[]): Promise<Set<string>> {
  const refused = new Set(targets.filter((t) => t.moved_to_account_id !== null).map((t) => t.id));
  const ids = targets.map((t) => t.id);
  const blocks = await db
    .selectFrom("blocks")
    .select(["account_id", "target_account_id"])
    .where((eb) =>
      eb.or([
        eb.and([eb("account_id", "=", source.id), eb("target_account_id", "in", ids)]),
        eb.and([eb("target_account_id", "=", source.id), eb("account_id", "in", ids)]),
      ]),
    )
    .execute();
  for (const b of blocks) refused.add(b.account_id === source.id ? b.target_account_id : b.account_id);
  if (source.domain !== null) {
    const blockers = await db
      .selectFrom("account_domain_blocks")
      .select("account_id")
      .where("account_id", "in", ids)
      .where("domain", "=", source.domain)
      .execute();
    for (const b of blockers) refused.add(b.account_id);
  }
  const domains = [...new Set(targets.flatMap((t) => (t.domain === null ? [] : [t.domain])))];
  if (domains.length === 0) return refused;
  const own = await db
    .selectFrom("account_domain_blocks")
    .select("domain")
    .where("account_id", "=", source.id)
    .where("domain", "in", domains)
    .execute();
  const suspended = await db
    .selectFrom("domain_blocks")
    .select("domain")
    .where("domain", "in", [...new Set(domains.flatMap(domainAndParents))])
    .where("severity", "=", "suspend")
    .execute();
  const ownBlocked = new Set(own.map((r) => r.domain));
  const serverBlocked = new Set(suspended.map((r) => r.domain));
  for (const t of targets) {
    if (t.domain === null) continue;
    if (ownBlocked.has(t.domain) || domainAndParents(t.domain).some((d) => serverBlocked.has(d))) refused.add(t.id);
  }
  return refused;
}

/** Those of `targetIds` that `sourceId` follows (or has asked to follow, in "follow_requests"). */
async function pairsOf(
  db: Db,
  table: "follows" | "follow_requests",
  sourceId: string,
  targetIds: string[],
): Promise<Set<string>> {
  const rows = await db
    .selectFrom(table)
    .select("target_account_id")
    .where("account_id", "=", sourceId)
    .where("target_account_id", "in", targetIds)
    .execute();
  return new Set(rows.map((r) => r.target_account_id));
}

/** Stops following `targetId`, or withdraws the request to. */
export async function unfollow(rt: Runtime, sourceId: string, targetId: string): Promise<void> {
  await requireAccount(rt.db, targetId);
  const pair = { sourceId, targetId };
  await rt.db.transaction().execute(async (trx) => {
    const followUri = await followUriOf(trx, pair);
    const ended = (await deleteFollow(rt, trx, pair)) || (await deleteFollowRequest(trx, pair)) !== null;
    if (!ended) return;
    await federate(rt, trx, sourceId, { type: "UndoFollow", accountId: sourceId, targetId, followUri }, [targetId]);
  });
}

/** Makes `followerId` stop following `accountId`. */
export async function removeFromFollowers(rt: Runtime, accountId: string, followerId: string): Promise<void> {
  await requireAccount(rt.db, followerId);
  await rt.db.transaction().execute(async (trx) => {
    const pair = { sourceId: followerId, targetId: accountId };
    const followUri = await followUriOf(trx, pair);
    if (!(await deleteFollow(rt, trx, pair))) return;
    await federate(rt, trx, accountId, { type: "Reject", accountId, followerId, followUri }, [followerId]);
  });
}

/** Accepts the request of `requesterId` to follow `accountId`; 404 when there is none. */
export async function authorizeFollowRequest(rt: Runtime, accountId: string, requesterId: string): Promise<void> {
  await requireAccount(rt.db, requesterId);
  const pair = { sourceId: requesterId, targetId: accountId };
  await rt.db.transaction().execute(async (trx) => {
    const request = await deleteFollowRequest(trx, pair);
    if (!request) throw notFound();
    const options = { reblogs: request.show_reblogs, notify: request.notify, languages: request.languages };
    if (await insertFollow(rt, trx, pair, options, request.uri)) {
      await notify(rt, trx, { recipientId: accountId, fromAccountId: requesterId, type: "follow" });
    }
    const accept = { type: "Accept", accountId, followerId: requesterId, followUri: request.uri } as const;
    await federate(rt, trx, accountId, accept, [requesterId]);
  });
}

/** Turns down the request of `requesterId` to follow `accountId`; 404 when there is none. */
export async function rejectFollowRequest(rt: Runtime, accountId: string, requesterId: string): Promise<void> {
  await requireAccount(rt.db, requesterId);
  await rt.db.transaction().execute(async (trx) => {
    const request = await deleteFollowRequest(trx, { sourceId: requesterId, targetId: accountId });
    if (!request) throw notFound();
    const reject = { type: "Reject", accountId, followerId: requesterId, followUri: request.uri } as const;
    await federate(rt, trx, accountId, reject, [requesterId]);
  });
}

const EMPTY: AccountPage = { items: [], next: null, prev: null };

/** Accounts asking to follow `accountId`, newest request first. */
export function listFollowRequests(rt: Runtime, accountId: string, page: Page): Promise<AccountPage> {
  const q = rt.db
    .selectFrom("follow_requests as r")
    .innerJoin("accounts as a", "a.id", "r.account_id")
    .select(["r.id", "r.account_id"])
    .where("r.target_account_id", "=", accountId)
    .where("a.suspended_at", "is", null);
  return paginate(q, "r.id", page);
}

/**
 * Followers (`direction` "followers") or followed accounts ("following") of `accountId`, newest
 * follow first, as `viewerId` (null when anonymous) may see them: nothing when the owner hides the
 * network from others, is suspended, or blocks the viewer; never accounts the viewer blocks, is
 * blocked by or mutes (the owner sees them all); never suspended accounts. 404 for no such account.
 */
export async function listFollows(
  rt: Runtime,
  accountId: string,
  direction: "followers" | "following",
  viewerId: string | null,
  page: Page,
): Promise<AccountPage> {
  const owner = isId(accountId)
    ? await rt.db
        .selectFrom("accounts")
        .select(["id", "hide_collections", "suspended_at"])
        .where("id", "=", accountId)
        .executeTakeFirst()
    : undefined;
  if (!owner) throw notFound();
  const isOwner = viewerId === accountId;
  if (owner.suspended_at !== null || (owner.hide_collections && !isOwner)) return EMPTY;
  if (viewerId && !isOwner && (await blocks(rt.db, accountId, viewerId))) return EMPTY;

  const [own, other] =
    direction === "followers"
      ? (["target_account_id", "account_id"] as const)
      : (["account_id", "target_account_id"] as const);
  let q = rt.db
    .selectFrom("follows as f")
    .innerJoin("accounts as a", "a.id", `f.${other}`)
    .select(["f.id", `f.${other} as account_id`])
    .where(`f.${own}`, "=", accountId)
    .where("a.suspended_at", "is", null);
  if (viewerId && !isOwner) q = q.where("a.id", "not in", hiddenAccountIds(rt.db, viewerId));
  return paginate(q, "f.id", page);
}

async function blocks(db: Db, accountId: string, targetId: string): Promise<boolean> {
  const row = await db
    .selectFrom("blocks")
    .select("id")
    .where("account_id", "=", accountId)
    .where("target_account_id", "=", targetId)
    .executeTakeFirst();
  return row !== undefined;
}

export interface FamiliarFollowers {
  id: string;
  /** Accounts the viewer follows that follow `id`, newest follow first. */
  accountIds: string[];
}

/**
 * For each of `ids` (existing, not suspended, in the order asked): the accounts `viewerId` follows
 * that follow it. Nobody for an account that hides its network, and never followers who hide theirs.
 */
export async function familiarFollowers(rt: Runtime, viewerId: string, ids: readonly string[]) {
  const wanted = [...new Set(ids.filter(isId))];
  if (wanted.length === 0) return [];
  const accounts = await rt.db
    .selectFrom("accounts")
    .select(["id", "hide_collections"])
    .where("id", "in", wanted)
    .where("suspended_at", "is", null)
    .execute();
  const open = accounts.filter((a) => !a.hide_collections).map((a) => a.id);
  const rows =
    open.length === 0
      ? []
      : await rt.db
          .selectFrom("follows as f")
          .innerJoin("follows as mine", "mine.target_account_id", "f.account_id")
          .innerJoin("accounts as a", "a.id", "f.account_id")
          .select(["f.target_account_id", "f.account_id"])
          .where("mine.account_id", "=", viewerId)
          .where("f.target_account_id", "in", open)
          .where("a.hide_collections", "=", false)
          .where("a.suspended_at", "is", null)
          .orderBy("f.id", "desc")
          .execute();
  const found = new Set(accounts.map((a) => a.id));
  return wanted
    .filter((id) => found.has(id))
    .map(
      (id): FamiliarFollowers => ({
        id,
        accountIds: rows.filter((r) => r.target_account_id === id).map((r) => r.account_id),
      }),
    );
}
