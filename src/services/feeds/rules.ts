// What belongs in a home or list feed, as one SQL condition. The same condition fills feeds when a
// status is posted (for many owners at once), rebuilds a feed, and reads past a trimmed feed's end,
// so all three agree. In it, `s` is the status, `orig` the boosted status (LEFT JOINed), `f` the
// owner's follow of the author (home), and the owner's id is the `owner` expression. `now`, the time
// timed mutes are compared with, is the current one unless given (a prepared statement gives it).
import { type RawBuilder, sql } from "kysely";
import type { Dialect } from "../../db/index.ts";
import { notMuted, visibleTo } from "../visibility/sql.ts";

/** Whether the JSON array in `column` holds `value` (the follow's chosen languages). */
function jsonArrayHas(dialect: Dialect, column: string, value: RawBuilder<unknown>) {
  return dialect === "postgres"
    ? sql`jsonb_exists(${sql.raw(column)}, ${value})`
    : sql`exists (select 1 from json_each(${sql.raw(column)}) where json_each.value = ${value})`;
}

/**
 * Rules every feed shares: the owner may see the status (and what it boosts) as the visibility rule
 * says, wants its author (and the boosted author) in feeds, and a boost shows only of a public or
 * unlisted status by someone else.
 */
function shared(owner: RawBuilder<unknown>, now?: Date) {
  return sql`
    ${visibleTo(owner, "s")}
    and s.visibility in ('public', 'unlisted', 'private')
    and ${notMuted(owner, sql.ref("s.account_id"), now)}
    and (s.reblog_of_id is null or (
      orig.visibility in ('public', 'unlisted')
      and orig.account_id <> ${owner}
      and ${notMuted(owner, sql.ref("orig.account_id"), now)}
    ))`;
}

/**
 * A status by someone the owner follows (through `f`) belongs in the owner's home feed when: it is
 * not a reply to someone the owner doesn't follow, a boost shows only if the owner wants the
 * author's boosts, the language is one the owner follows the author in, and the author is not in
 * one of the owner's exclusive lists.
 */
export function homeRule(dialect: Dialect, owner: RawBuilder<unknown>, now?: Date) {
  return sql<boolean>`(
    ${shared(owner, now)}
    and (s.in_reply_to_account_id is null or s.in_reply_to_account_id = s.account_id
         or s.in_reply_to_account_id = ${owner}
         or exists (select 1 from follows r where r.account_id = ${owner} and r.target_account_id = s.in_reply_to_account_id))
    and (s.reblog_of_id is null or f.show_reblogs = ${true})
    and (f.languages is null or coalesce(orig.language, s.language) is null
         or ${jsonArrayHas(dialect, "f.languages", sql`coalesce(orig.language, s.language)`)})
    and not exists (select 1 from lists l join list_accounts la on la.list_id = l.id
                    where l.account_id = ${owner} and l.exclusive = ${true} and la.account_id = s.account_id)
  )`;
}

/**
 * A status by a member belongs in a list feed unless it is a reply the list's replies_policy leaves
 * out: `none` shows no replies to others, `list` replies to members, `followed` replies to accounts
 * the owner follows. Replies to the owner always show.
 */
export function listRule(owner: RawBuilder<unknown>, listId: RawBuilder<unknown>, now?: Date) {
  return sql<boolean>`(
    ${shared(owner, now)}
    and (s.in_reply_to_account_id is null or s.in_reply_to_account_id = s.account_id
         or s.in_reply_to_account_id = ${owner}
         or exists (select 1 from lists lp where lp.id = ${listId} and (
              (lp.replies_policy = 'list' and exists (select 1 from list_accounts lm where lm.list_id = lp.id and lm.account_id = s.in_reply_to_account_id))
              or (lp.replies_policy = 'followed' and exists (select 1 from follows r where r.account_id = ${owner} and r.target_account_id = s.in_reply_to_account_id)))))
  )`;
}

/** A boost is left out where the boosted status, or another boost of it, is in the feed already. */
export function notAlreadyBoosted(feed: RawBuilder<unknown>) {
  return sql<boolean>`(s.reblog_of_id is null or not exists (
    select 1 from feed_entries e where e.feed_id = ${feed} and (e.status_id = s.reblog_of_id or e.reblog_of_id = s.reblog_of_id)))`;
}

/** A public status with a hashtag the owner follows belongs in the owner's home feed. */
export function tagFollowerRule(owner: RawBuilder<unknown>, now?: Date) {
  return sql<boolean>`(${shared(owner, now)} and s.visibility = 'public')`;
}
