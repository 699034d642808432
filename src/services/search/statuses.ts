// Full-text search of statuses (GET /api/v2/search, type=statuses) with Mastodon's operators and its
// rule of who may find what: one's own statuses and those that mention one, that one favourited,
// bookmarked or boosted ("in:library"), and public statuses of accounts that opted in with
// `indexable` ("in:public"). On top of that, the visibility module decides what the searcher may
// read at all, so a search never shows more than the timelines would.
import { type RawBuilder, sql } from "kysely";
import { PLAN_EACH_RUN } from "../../db/statements.ts";
import { idFloor } from "../../domain/ids.ts";
import { type Filter, parseStatusQuery, type StatusQuery } from "../../domain/search_query.ts";
import type { Runtime } from "../../runtime.ts";
import { isLocalDomain } from "../accounts/accounts.ts";
import { visibleTo } from "../visibility/sql.ts";

type Cond = RawBuilder<unknown>;

export interface StatusSearch {
  q: string;
  limit: number;
  offset: number;
  minId?: string;
  maxId?: string;
  /** Only statuses of this account. */
  accountId?: string;
}

const NONE = sql`1 = 0`;

/** The attachment types each `has:` asks for, as Mastodon counts them (a GIF plays as a video). */
const MEDIA_TYPES = {
  media: ["image", "gifv", "video", "audio"],
  image: ["image"],
  video: ["video", "gifv"],
  audio: ["audio"],
} as const;

/**
 * The statuses in the viewer's library ("in:library"): their own, and those that mention them, that
 * they favourited, bookmarked or boosted. A subquery of ids, small next to the public statuses.
 */
function libraryIds(v: Cond): Cond {
  return sql`(select id from statuses where account_id = ${v}
    union select status_id from status_mentions where account_id = ${v}
    union select status_id from favourites where account_id = ${v}
    union select status_id from bookmarks where account_id = ${v}
    union select reblog_of_id from statuses where account_id = ${v} and reblog_of_id is not null and deleted_at is null)`;
}

/**
 * Public statuses of accounts that opted in ("in:public"); those of a limited (silenced) account
 * only for its followers.
 */
const optedIn = (v: Cond) => sql`(s.visibility = 'public' and exists (
  select 1 from accounts fa where fa.id = s.account_id and fa.indexable = ${true}
  and (fa.silenced_at is null or exists (
    select 1 from follows ff where ff.account_id = ${v} and ff.target_account_id = fa.id))))`;

async function accountIdOf(rt: Runtime, viewerId: string, acct: string): Promise<string | null> {
  if (acct.toLowerCase() === "me") return viewerId;
  const [name = "", domain = null] = acct.split("@");
  const key = `${name.toLowerCase()}@${isLocalDomain(rt, domain) ? "" : domain!.toLowerCase()}`;
  const row = await rt.db.selectFrom("accounts").select("id").where("acct_key", "=", key).executeTakeFirst();
  return row?.id ?? null;
}

/**
 * `s.account_id = id`, or where the full-text index leads (SQLite), `+s.account_id = id`: the unary
 * plus keeps SQLite from looking the statuses up by author instead of by the id the index gave (and
 * takes the column's affinity, hence the cast).
 */
const byAuthor = (indexFirst: boolean, id: string) =>
  indexFirst ? sql`+s.account_id = cast(${id} as integer)` : sql`s.account_id = ${id}`;

async function condition(rt: Runtime, viewerId: string, f: Filter, indexFirst: boolean): Promise<Cond> {
  switch (f.kind) {
    case "from": {
      const id = await accountIdOf(rt, viewerId, f.acct);
      return id === null ? NONE : byAuthor(indexFirst, id);
    }
    case "has":
      if (f.what === "poll") return sql`s.poll_id is not null`;
      // Links other than mentions and hashtags are the ones rendered with this rel.
      if (f.what === "link") return sql`s.content like '%rel="nofollow noopener"%'`;
      // An embed is a link's preview card, once it has something to show.
      if (f.what === "embed")
        return sql`exists (select 1 from preview_cards_statuses pcs join preview_cards c on c.id = pcs.preview_card_id
          where pcs.status_id = s.id and (c.title <> '' or c.html <> ''))`;
      return sql`exists (select 1 from media_attachments m where m.status_id = s.id and m.position is not null
        and m.type in (${sql.join(MEDIA_TYPES[f.what].map((t) => sql.lit(t)))}))`;
    case "is":
      if (f.what === "sensitive") return sql`s.sensitive = ${true}`;
      return indexFirst ? sql`+s.in_reply_to_id is not null` : sql`s.in_reply_to_id is not null`;
    case "language":
      return sql`s.language = ${f.code}`;
    case "time": {
      // Where the index leads, its rowid: FTS5 then starts and stops at the dates.
      const id = indexFirst ? sql`f.rowid` : sql`s.id`;
      return sql.join(
        [f.from ? sql`${id} > ${idFloor(f.from)}` : sql`1 = 1`, f.to ? sql`${id} <= ${idFloor(f.to)}` : sql`1 = 1`],
        sql` and `,
      );
    }
  }
}

/** FTS5's query syntax: each word list a quoted phrase (they hold only letters and digits). */
const ftsPhrases = (lists: string[][], joiner: string) => lists.map((w) => `"${w.join(" ")}"`).join(joiner);

/** PostgreSQL's: phrases (or words) joined into one tsquery. */
const tsPhrases = (lists: string[][], joiner: "&&" | "||") =>
  sql.join(
    lists.map((w) => sql`phraseto_tsquery('simple', ${w.join(" ")})`),
    sql.raw(` ${joiner} `),
  );

/**
 * The query's words as a FROM clause and conditions, with the key to order by (the status id).
 * `perStatus`: the statuses to search are few (one author's, or the viewer's library), so they are
 * listed first and each is checked against the index; otherwise the index leads.
 */
function textMatch(
  rt: Runtime,
  q: StatusQuery,
  statuses: Cond,
  perStatus: boolean,
): { from: Cond; where: Cond[]; key: Cond; indexFirst: boolean } {
  const where: Cond[] = [];
  const statusesFirst = { from: statuses, where, key: sql`s.id`, indexFirst: false };
  if (rt.dialect === "sqlite") {
    if (q.exclude.length > 0 && (q.include.length === 0 || perStatus))
      where.push(sql`not exists (select 1 from status_search x where x.rowid = s.id
        and x.document match ${ftsPhrases(q.exclude, " OR ")})`);
    if (q.include.length === 0) return statusesFirst;
    const positive = `(${ftsPhrases(q.include, " AND ")})`;
    if (perStatus) {
      // With the rowid given, FTS5 seeks to it in each word's list instead of running the whole query.
      where.push(sql`exists (select 1 from status_search f where f.rowid = s.id and f.document match ${positive})`);
      return statusesFirst;
    }
    where.push(sql`f.document match ${positive + q.exclude.map((w) => ` NOT "${w.join(" ")}"`).join("")}`);
    // The index comes first (CROSS JOIN keeps SQLite from reordering): ordered by its rowid, it hands
    // out matches newest first and stops at the limit. Joined the other way, SQLite would run the
    // whole full-text query again for every status it tries.
    return {
      from: sql`status_search f cross join statuses s on s.id = f.rowid`,
      where,
      key: sql`f.rowid`,
      indexFirst: true,
    };
  }
  if (q.exclude.length > 0)
    where.push(sql`not exists (select 1 from status_search x where x.status_id = s.id
      and x.document @@ (${tsPhrases(q.exclude, "||")}))`);
  if (q.include.length === 0) return statusesFirst;
  if (perStatus) {
    // `offset 0` keeps the check a lookup per status: as a join, PostgreSQL would walk the whole
    // index in id order to meet the few statuses (98 ms for a common word in the library).
    where.push(sql`exists (select 1 from status_search f where f.status_id = s.id
      and f.document @@ (${tsPhrases(q.include, "&&")}) offset 0)`);
    return statusesFirst;
  }
  where.push(sql`f.document @@ (${tsPhrases(q.include, "&&")})`);
  return {
    from: sql`status_search f join statuses s on s.id = f.status_id`,
    where,
    key: sql`f.status_id`,
    indexFirst: false,
  };
}

/** How many rows SQLite looks at, at most, to tell a narrow side of a search from a wide one. */
const PROBE = 2000;

/**
 * The operators whose statuses SQLite can list from an index of `statuses` (migration 0052 and
 * statuses_reply), as a condition on it, written as the partial indexes are.
 */
function indexedFilter(f: Filter): Cond | null {
  if (f.kind === "is") return f.what === "reply" ? sql`in_reply_to_id is not null` : sql`sensitive = 1`;
  if (f.kind === "has" && f.what === "poll") return sql`poll_id is not null`;
  if (f.kind === "language") return sql`language = ${f.code}`;
  return null;
}

/** How many rows `rows` gives, counting up to PROBE. */
async function countUpToProbe(rt: Runtime, rows: Cond): Promise<number> {
  const r = await sql<{ n: number | string }>`select count(*) as n from (${rows} limit ${PROBE})`.execute(rt.db);
  return Number(r.rows[0].n);
}

/**
 * On SQLite, the statuses an operator allows when they are fewer than those with the words (`birds
 * is:reply` where hardly anything is a reply): listing them and checking each against the index
 * is then cheaper than walking every status with the words, newest first, and refusing most.
 * Null when the words should lead. Each side is counted up to PROBE rows only.
 */
async function narrowOperator(rt: Runtime, q: StatusQuery): Promise<Cond | null> {
  if (rt.dialect !== "sqlite" || q.include.length === 0) return null;
  const indexed = q.filters.flatMap(({ filter, negated }) => {
    const c = negated ? null : indexedFilter(filter);
    return c ? [c] : [];
  });
  if (indexed.length === 0) return null;
  let fewest = await countUpToProbe(
    rt,
    sql`select 1 from status_search where document match ${ftsPhrases(q.include, " AND ")}`,
  );
  let narrow: Cond | null = null;
  for (const c of indexed) {
    const n = await countUpToProbe(rt, sql`select 1 from statuses where ${c}`);
    if (n < fewest) [fewest, narrow] = [n, c];
  }
  return narrow;
}

/** Up to `n` ids found in one part of the who-may-find rule, newest first. */
async function searchScope(
  rt: Runtime,
  viewerId: string,
  q: StatusQuery,
  s: StatusSearch,
  scope: "library" | "public",
  n: number,
): Promise<string[]> {
  const viewer = sql`${viewerId}`;
  const oneAuthor = s.accountId !== undefined || q.filters.some((f) => f.filter.kind === "from" && !f.negated);
  // SQLite's CROSS JOIN keeps the library first; PostgreSQL plans the join itself.
  const join = rt.dialect === "sqlite" ? sql`cross join` : sql`join`;
  const narrow = oneAuthor || scope === "library" ? null : await narrowOperator(rt, q);
  const statuses =
    scope === "library"
      ? sql`${libraryIds(viewer)} l ${join} statuses s on s.id = l.id`
      : narrow
        ? // By rowid: the operator's index holds it, so SQLite lists them without reading the table.
          sql`(select rowid as r from statuses where ${narrow}) n cross join statuses s on s.rowid = n.r`
        : sql`statuses s`;
  const text = textMatch(rt, q, statuses, oneAuthor || scope === "library" || narrow !== null);
  // Boosts are not in the index; without words, they are left out here.
  const where = text.indexFirst ? [...text.where] : [...text.where, sql`s.reblog_of_id is null`];
  for (const { filter, negated } of q.filters) {
    const c = await condition(rt, viewerId, filter, text.indexFirst);
    where.push(negated ? sql`not coalesce(${c}, ${false})` : c);
  }
  if (s.accountId) where.push(byAuthor(text.indexFirst, s.accountId));
  if (s.minId) where.push(sql`${text.key} > ${s.minId}`);
  if (s.maxId) where.push(sql`${text.key} < ${s.maxId}`);
  if (scope === "public") where.push(optedIn(viewer));
  where.push(visibleTo(viewer, "s"));
  const rows = await sql<{
    id: string;
  }>`${sql.raw(PLAN_EACH_RUN)} select s.id from ${text.from} where ${sql.join(where, sql` and `)}
    order by ${text.key} desc limit ${n}`.execute(rt.db);
  return rows.rows.map((r) => String(r.id));
}

/**
 * Ids of the statuses found, newest first. The library and the opted-in public statuses are searched
 * apart, each the way that suits it, and the two merged.
 */
export async function searchStatuses(rt: Runtime, viewerId: string, s: StatusSearch): Promise<string[]> {
  const q = parseStatusQuery(s.q);
  if (s.limit < 1 || (q.include.length === 0 && q.exclude.length === 0 && q.filters.length === 0)) return [];
  const scopes = q.scope === "all" ? (["library", "public"] as const) : [q.scope];
  const found = await Promise.all(scopes.map((scope) => searchScope(rt, viewerId, q, s, scope, s.offset + s.limit)));
  const newestFirst = [...new Set(found.flat())].sort((a, b) =>
    BigInt(b) > BigInt(a) ? 1 : BigInt(b) < BigInt(a) ? -1 : 0,
  );
  return newestFirst.slice(s.offset, s.offset + s.limit);
}
