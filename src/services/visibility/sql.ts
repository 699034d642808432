// The visibility rule of rule.ts as SQL conditions, for the read paths that list statuses in the
// database (feeds and their fan-out, public and hashtag timelines, account statuses, notifications,
// conversations, favourites and bookmarks): each composes these rather than writing its own, and a
// property test checks that they list exactly what canSee allows. `visibleTo` binds no values of
// its own besides the viewer, so a read path may splice it into SQL it keeps as text.
//
// `viewer` is an SQL expression giving the viewer's account id (a bound value, or a column when one
// statement decides for many owners), or null for an anonymous reader; `status` is the alias of a
// `statuses` row in the enclosing query.
//
// A boost's other status is looked up as a scalar subquery (`(select 1 …) is not null`), not with
// `or exists (…)`: PostgreSQL may run an `exists` under an `or` as a hash of every row it could
// match, and did: one boost on a home page made it hash all the statuses (100 ms at 200,000).

import { type RawBuilder, sql } from "kysely";
import { unexpired } from "../../db/expiry.ts";
import type { Dialect } from "../../db/index.ts";

type Expr = RawBuilder<unknown>;

/** The viewer blocks `account`, or `account` blocks the viewer. */
export function blockedEitherWay(viewer: Expr, account: Expr) {
  return sql<boolean>`(exists (select 1 from blocks vb where vb.account_id = ${viewer} and vb.target_account_id = ${account})
    or exists (select 1 from blocks vb where vb.account_id = ${account} and vb.target_account_id = ${viewer}))`;
}

/** The viewer blocks no one and no one blocks them: asked once per statement where `viewer` is a value. */
function blocksNobody(viewer: Expr) {
  return sql<boolean>`(not exists (select 1 from blocks where account_id = ${viewer})
    and not exists (select 1 from blocks where target_account_id = ${viewer}))`;
}

/**
 * The status itself (not what it boosts) is one the viewer may see: live, by an author who is not
 * suspended, blocked either way or on a domain the viewer blocks, and addressed to the viewer
 * (public, unlisted, private to a follower, or mentioning the viewer, silently or not).
 * `depth` keeps the aliases of a nested check apart from the enclosing one's.
 *
 * Where the viewer is a bound value, whether they block anyone (or are blocked, or block a domain)
 * is asked once per statement, not per status: most viewers have none, and the home timeline then
 * pays for none of those checks.
 */
function statusItself(viewer: Expr | null, status: string, depth: number) {
  const s = sql.raw(status);
  const author = sql.raw(`va${depth}`);
  const domainBlocked = viewer
    ? sql`and (${author}.domain is null
        or not exists (select 1 from account_domain_blocks where account_id = ${viewer})
        or not exists (select 1 from account_domain_blocks vd where vd.account_id = ${viewer} and vd.domain = ${author}.domain))`
    : sql``;
  const live = sql`${s}.deleted_at is null and exists (
    select 1 from accounts ${author} where ${author}.id = ${s}.account_id and ${author}.suspended_at is null ${domainBlocked})`;
  if (!viewer) return sql<boolean>`(${live} and ${s}.visibility in ('public', 'unlisted'))`;
  return sql<boolean>`(${live} and (${s}.account_id = ${viewer} or (
    (${s}.visibility in ('public', 'unlisted')
     or (${s}.visibility = 'private' and exists (
           select 1 from follows vf where vf.account_id = ${viewer} and vf.target_account_id = ${s}.account_id))
     or exists (select 1 from status_mentions vm where vm.status_id = ${s}.id and vm.account_id = ${viewer}))
    and (${blocksNobody(viewer)} or not ${blockedEitherWay(viewer, sql.ref(`${status}.account_id`))}))))`;
}

/** The viewer may see `status`: it and, for a boost, the boosted status (canSee for both). */
export function visibleTo(viewer: Expr | null, status = "s") {
  const s = sql.raw(status);
  return sql<boolean>`(${statusItself(viewer, status, 0)} and (${s}.reblog_of_id is null or (
    select 1 from statuses vo where vo.id = ${s}.reblog_of_id and ${statusItself(viewer, "vo", 1)}) is not null))`;
}

/**
 * visibleTo for the status a `feed_entries` row (alias `entry`) names, decided from the entry's own
 * columns: its status and author and, for a boost, the boosted status and its author. Both
 * statuses are asked at once, each condition in one lookup: PostgreSQL sets up every table a
 * statement names on each run, which cost a feed page more than the lookups themselves. The
 * statuses are read through a partial index of the exceptions (deleted, private and direct
 * statuses) and the authors through one of suspended accounts: most pages are in neither. SQLite,
 * which plans without statistics, is told to (`indexed by`): left to itself it looked each one up
 * by its primary key and read its row, 35–40 µs more for a page of 20.
 * Statuses are deleted by marking them, with two exceptions, both covered: an undone boost's row
 * goes at once (its feed entries later), and a purged account's statuses go while the account
 * stays, suspended. `blocks` false leaves out the checks of blocks and domain blocks, for a viewer
 * known to be in none (blocks_involved.ts).
 */
export function visibleEntry(viewer: Expr, entry: string, blocks: boolean, dialect: Dialect) {
  const indexedBy = (index: string) => sql.raw(dialect === "sqlite" ? `indexed by ${index}` : "");
  const e = sql.raw(entry);
  const statuses = sql`(${e}.status_id, ${e}.reblog_of_id)`;
  const authors = sql`(${e}.account_id, ${e}.reblog_author_id)`;
  const addressed = sql`(vx.account_id = ${viewer}
    or (vx.visibility = 'private' and exists (
          select 1 from follows vf where vf.account_id = ${viewer} and vf.target_account_id = vx.account_id))
    or exists (select 1 from status_mentions vm where vm.status_id = vx.id and vm.account_id = ${viewer}))`;
  const notBlocked = sql`and (not exists (select 1 from account_domain_blocks where account_id = ${viewer})
      or not exists (select 1 from accounts va join account_domain_blocks vd on vd.domain = va.domain
        where va.id in ${authors} and vd.account_id = ${viewer}))
    and (${blocksNobody(viewer)} or not exists (select 1 from blocks vb
      where (vb.account_id = ${viewer} and vb.target_account_id in ${authors})
        or (vb.account_id in ${authors} and vb.target_account_id = ${viewer})))`;
  // The first condition on `vx` is the index's own, which `indexed by` requires; the second implies it.
  return sql<boolean>`(not exists (select 1 from statuses vx ${indexedBy("statuses_exceptions")} where vx.id in ${statuses}
      and (vx.deleted_at is not null or vx.visibility in ('private', 'direct'))
      and (vx.deleted_at is not null or (vx.visibility in ('private', 'direct') and not ${addressed})))
    and not exists (select 1 from accounts vsu ${indexedBy("accounts_suspended")}
      where vsu.id in ${authors} and vsu.suspended_at is not null)
    ${blocks ? notBlocked : sql``}
    and (${e}.reblog_of_id is null or (select 1 from statuses vr where vr.id = ${e}.status_id) is not null))`;
}

/** The status with id `statusId` (an expression) is one the viewer may see. */
export function visibleStatusId(viewer: Expr | null, statusId: Expr) {
  return sql<boolean>`exists (select 1 from statuses vs where vs.id = ${statusId} and ${visibleTo(viewer, "vs")})`;
}

/**
 * The viewer does not mute `account` (a timed mute counts until it ends). This is not visibility: a
 * muted account's statuses still open; feeds and notifications leave them out.
 */
export function notMuted(viewer: Expr, account: Expr, now?: Date) {
  return sql<boolean>`not exists (select 1 from mutes vmu where vmu.account_id = ${viewer} and vmu.target_account_id = ${account}
    and ${unexpired("vmu.expires_at", now)})`;
}

/** The viewer as an expression: their id as a bound value, or null for an anonymous reader. */
export function viewerValue(viewerId: string | null): Expr | null {
  return viewerId === null ? null : sql`${viewerId}`;
}
