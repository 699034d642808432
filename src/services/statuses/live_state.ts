// What changes all the time about the statuses of a page, in one query (one round trip): their
// counters, their authors' counters, and the viewer's favourites, boosts, bookmarks, pins and muted
// threads. The statuses are either listed, or (on PostgreSQL) a page of a feed that the same query
// reads: a home timeline request is then a single round trip. Every timeline page runs it, so its
// SQL is written out here and kept per shape rather than built with Kysely on every call: building
// that union cost a tenth of a timeline request.
import { CompiledQuery, sql } from "kysely";
import type { Dialect } from "../../db/index.ts";
import type { PagePlan } from "../../db/paginate.ts";
import type { Runtime } from "../../runtime.ts";
import { blocksInvolve } from "../visibility/blocks_involved.ts";
import { visibleEntry } from "../visibility/sql.ts";

export interface StatusCounters {
  replies_count: number;
  reblogs_count: number;
  favourites_count: number;
}

/** An account's counters, which change too often to be kept with its profile. */
export interface AccountCounters {
  followers_count: number;
  following_count: number;
  statuses_count: number;
  /** The day (YYYY-MM-DD, UTC) of the account's last status. */
  last_status_at: string | null;
}

export interface ViewerFlags {
  favourited: Set<string>;
  bookmarked: Set<string>;
  pinned: Set<string>;
  reblogged: Set<string>;
  /** Conversation ids. */
  muted: Set<string>;
}

export interface LiveState {
  stats: Map<string, StatusCounters>;
  accounts: Map<string, AccountCounters>;
  flags: ViewerFlags | null;
}

/** The ids a query looks up: statuses, their authors, their threads, and those of them the viewer wrote. */
type List = "statuses" | "accounts" | "conversations" | "own";

/** A parameter: the viewer's id, a list of ids, or a value of the feed page (its feed, a bound). */
type Param = List | "viewer" | "feed" | `bound${number}`;

interface Shape {
  sql: string;
  /** Where the parameters come from, in order. */
  params: Param[];
}

/** Builds one shape's SQL; `param` adds a parameter and returns its placeholder ($1… or ?). */
class ShapeBuilder {
  readonly params: Param[] = [];
  readonly dialect: Dialect;

  constructor(dialect: Dialect) {
    this.dialect = dialect;
  }

  param(from: Param): string {
    this.params.push(from);
    return this.dialect === "postgres" ? `$${this.params.length}` : "?";
  }
}

/**
 * The union of entries, each `kind,id,…`, for the statuses that `isIn(column, list)` selects.
 * `has` says which lists may hold anything (a part for an empty list is left out).
 */
function liveParts(
  b: ShapeBuilder,
  isIn: (column: string, list: List) => string,
  has: Record<List, boolean>,
  withViewer: boolean,
): string[] {
  const entry = (kind: string, columns: string[]) => [`'${kind}'`, ...columns].join(" || ',' || ");
  const flag = (kind: string, table: string, column: string, list: List, extra = "") =>
    `select ${entry(kind, [column])} as e from ${table}` +
    ` where account_id = ${b.param("viewer")} and ${isIn(column, list)}${extra}`;
  const parts = [
    `select ${entry("s", ["status_id", "replies_count", "reblogs_count", "favourites_count"])} as e` +
      ` from status_stats where ${isIn("status_id", "statuses")}`,
  ];
  if (has.accounts) {
    const counters = ["account_id", "followers_count", "following_count", "statuses_count"];
    // The day (UTC) of the last status, which is all the entity shows.
    const day =
      b.dialect === "postgres"
        ? "coalesce(to_char(last_status_at at time zone 'UTC', 'YYYY-MM-DD'), '')"
        : "coalesce(substr(last_status_at, 1, 10), '')";
    parts.push(
      `select ${entry("c", [...counters, day])} as e from account_stats where ${isIn("account_id", "accounts")}`,
    );
  }
  if (withViewer) {
    parts.push(
      flag("f", "favourites", "status_id", "statuses"),
      flag("b", "bookmarks", "status_id", "statuses"),
      flag("r", "statuses", "reblog_of_id", "statuses", " and deleted_at is null"),
    );
    // Only the viewer's own statuses can be pinned by them.
    if (has.own) parts.push(flag("p", "status_pins", "status_id", "own"));
    if (has.conversations) parts.push(flag("m", "conversation_mutes", "conversation_id", "conversations"));
  }
  return parts;
}

/** The whole union as one text: reading one value costs the driver far less than a row per entry. */
function aggregated(dialect: Dialect, parts: string[], prefix = ""): string {
  const joined = dialect === "postgres" ? "string_agg(e, ';')" : "group_concat(e, ';')";
  return `${prefix}select ${joined} as entries from (${parts.join(" union all ")}) as live`;
}

/**
 * Listed statuses, each list bound as one value: an array on PostgreSQL, a JSON array on SQLite.
 * One SQL text per dialect and lists present, whatever their lengths: written out as `in (?, ?, …)`,
 * each length was a statement of its own, and SQLite kept hundreds of them (about 40 KB each) at no
 * gain in speed.
 */
function listedShape(dialect: Dialect, has: Record<List, boolean>, withViewer: boolean): Shape {
  const b = new ShapeBuilder(dialect);
  const isIn = (column: string, list: List) =>
    dialect === "postgres"
      ? `${column} = any(${b.param(list)})`
      : `${column} in (select value from json_each(${b.param(list)}))`;
  return { sql: aggregated(dialect, liveParts(b, isIn, has, withViewer)), params: b.params };
}

/**
 * The `feed_entries` rows (as `e`) of a page of `plan` (parameters added to `b` in text order),
 * keeping only statuses the viewer may see now (`visible`, with the viewer's placeholders to
 * fill): the feed was filled by the same rule, and this re-checks what may have changed since
 * (blocks, domain blocks, deletions, suspensions, follows ended) in the same statement, so that a
 * page is never cut short. The check reads the entry's own columns (visibleEntry), not its status.
 */
function pageRows(b: ShapeBuilder, plan: PagePlan, columns: string, visible: string[]): string {
  // Parameters in the order the text uses them: SQLite's `?` are numbered by position.
  const feed = b.param("feed");
  const bounds = plan.bounds.map(({ op }, i) => ` and e.status_id ${op} ${b.param(`bound${i}`)}`).join("");
  const condition = visible.reduce((text, part) => `${text}${b.param("viewer")}${part}`);
  return (
    `select ${columns} from feed_entries e` +
    ` where e.feed_id = ${feed}${bounds} and ${condition}` +
    // The limit is written out (one shape per limit): bound as a parameter, SQLite ran this
    // statement two to four times slower on the benchmark's feed, with the same plan.
    ` order by e.status_id ${plan.order} limit ${Math.trunc(plan.limit)}`
  );
}

/**
 * A page of a feed with `i,id` entries for its rows, on PostgreSQL. The statuses are the rows and
 * the statuses they boost, and the accounts their authors: feed entries hold all of these, so the
 * statuses table is read only through the visibility check's index of exceptions (and for muted
 * threads, when the viewer mutes any).
 */
function feedShape(plan: PagePlan, visible: string[]): Shape {
  const b = new ShapeBuilder("postgres");
  // `= any(array(subquery))` is planned as index lookups of a list computed once; `in (subquery)`
  // may be planned as a scan of the whole table. Each list of the page is computed once.
  const within = (query: string) => ` = any(array(${query}))`;
  const page =
    `with page as materialized (${pageRows(b, plan, "e.status_id, e.account_id, e.reblog_of_id, e.reblog_author_id", visible)}),` +
    " page_statuses as materialized (select status_id as id from page" +
    " union all select reblog_of_id from page where reblog_of_id is not null)," +
    " page_accounts as materialized (select account_id from page" +
    " union all select reblog_author_id from page where reblog_author_id is not null) ";
  const isIn = (column: string, list: List) => {
    if (list === "accounts") return column + within("select account_id from page_accounts");
    if (list === "conversations") {
      return `exists (select 1 from statuses s where s.id${within("select id from page_statuses")} and s.conversation_id = conversation_mutes.${column})`;
    }
    // The viewer's pins are of the viewer's own statuses: "own" needs no other condition.
    return column + within("select id from page_statuses");
  };
  const all = { statuses: true, accounts: true, conversations: true, own: true };
  const parts = [
    "select 'i,' || status_id as e from page",
    `select 'h,' || horizon_id as e from feed_horizons where feed_id = ${b.param("feed")}`,
    ...liveParts(b, isIn, all, true),
  ];
  return { sql: aggregated("postgres", parts, page), params: b.params };
}

const shapes = new Map<string, Shape>();
const MAX_SHAPES = 2000;

function cachedShape(key: string, build: () => Shape): Shape {
  let found = shapes.get(key);
  if (!found) {
    if (shapes.size >= MAX_SHAPES) shapes.clear();
    found = build();
    shapes.set(key, found);
  }
  return found;
}

const [COMMA, SEMICOLON, MINUS, ZERO, NINE] = [",", ";", "-", "0", "9"].map((c) => c.charCodeAt(0));

/** Runs a shape and reads its entries: the live state, and the ids of `i` entries. */
async function run(
  rt: Runtime,
  shape: Shape,
  value: (from: Param) => unknown[],
  withViewer: boolean,
): Promise<{ live: LiveState; ids: string[]; horizon: string | null }> {
  const values = shape.params.flatMap(value);
  const { rows } = await rt.db.executeQuery<{ entries: string | null }>(CompiledQuery.raw(shape.sql, values));
  const stats = new Map<string, StatusCounters>();
  const accounts = new Map<string, AccountCounters>();
  const ids: string[] = [];
  let horizon: string | null = null;
  const byKind: Record<string, Set<string>> = { f: new Set(), b: new Set(), p: new Set(), r: new Set(), m: new Set() };
  // Read in place (entries `kind,id,…` joined by `;`): splitting made an array and a string for every
  // entry and field, the most a timeline request allocated after its answer.
  const text = rows[0]?.entries ?? "";
  let at = 0;
  /** The field at `at` (ended by a comma, a semicolon or the end), and `at` past its separator. */
  const field = () => {
    let end = at;
    while (end < text.length && text.charCodeAt(end) !== COMMA && text.charCodeAt(end) !== SEMICOLON) end++;
    const value = text.slice(at, end);
    at = end + 1;
    return value;
  };
  /** The number at `at`, likewise. */
  const count = () => {
    const sign = text.charCodeAt(at) === MINUS ? -1 : 1;
    if (sign < 0) at++;
    let n = 0;
    for (let code = text.charCodeAt(at); code >= ZERO && code <= NINE; code = text.charCodeAt(++at))
      n = n * 10 + code - ZERO;
    at++;
    return sign * n;
  };
  while (at < text.length) {
    const kind = text[at];
    at += 2;
    const id = field();
    if (kind === "s") {
      stats.set(id, { replies_count: count(), reblogs_count: count(), favourites_count: count() });
    } else if (kind === "c") {
      accounts.set(id, {
        followers_count: count(),
        following_count: count(),
        statuses_count: count(),
        last_status_at: field() || null,
      });
    } else if (kind === "i") {
      ids.push(id);
    } else if (kind === "h") {
      horizon = id;
    } else {
      byKind[kind]?.add(id);
    }
  }
  const flags = withViewer
    ? { favourited: byKind.f, bookmarked: byKind.b, pinned: byKind.p, reblogged: byKind.r, muted: byKind.m }
    : null;
  return { live: { stats, accounts, flags }, ids, horizon };
}

/** The live state of listed statuses; `viewer` adds the viewer's flags. */
export async function loadLiveState(
  rt: Runtime,
  statusIds: string[],
  accountIds: string[],
  viewer: { id: string; conversations: string[]; own: string[] } | null,
): Promise<LiveState> {
  const lists: Record<List, string[]> = {
    statuses: statusIds,
    accounts: accountIds,
    conversations: viewer?.conversations ?? [],
    own: viewer?.own ?? [],
  };
  const has = {
    statuses: true,
    accounts: accountIds.length > 0,
    conversations: lists.conversations.length > 0,
    own: lists.own.length > 0,
  };
  const withViewer = viewer !== null;
  const key = `${rt.dialect}:${has.accounts}:${has.conversations}:${has.own}:${withViewer}`;
  const shape = cachedShape(key, () => listedShape(rt.dialect, has, withViewer));
  const value = (from: Param): unknown[] => {
    if (from === "viewer") return [viewer!.id];
    const list = lists[from as List];
    // Ids are decimal numbers: as JSON numbers they compare with the integer keys through their indexes.
    return [rt.dialect === "postgres" ? list : `[${list.join(",")}]`];
  };
  return (await run(rt, shape, value, withViewer)).live;
}

const VIEWER = "\u0000viewer\u0000";

/**
 * The visibility rule for the feed's owner as SQL text, cut where the owner's id goes (it binds
 * nothing else).
 */
function visibleToFeedOwner(rt: Runtime, blocks: boolean): string[] {
  const compiled = visibleEntry(sql.raw(VIEWER), "e", blocks, rt.dialect).compile(rt.db);
  if (compiled.parameters.length > 0) throw new Error("the feed page's visibility condition must bind nothing");
  return compiled.sql.split(VIEWER);
}

/**
 * A page of the feed `feedId` read as `plan` says, in plan order, with the feed's horizon read in the
 * same statement: read apart, a rebuild or a trim between the two could pair a page with a horizon
 * it does not go with. On PostgreSQL, the same round trip brings the live state of its statuses as
 * `viewerId` (the feed's owner) sees them. SQLite answers in-process, where a second statement costs
 * no round trip and lists bound as values cost it less than lists computed inside the statement:
 * there the live state is read afterwards, as for any list.
 */
export async function loadFeedPage(
  rt: Runtime,
  feedId: string,
  plan: PagePlan,
  viewerId: string,
): Promise<{ ids: string[]; horizon: string | null; live: LiveState | null }> {
  const bounds = plan.bounds.map((b) => b.op).join("");
  const blocks = await blocksInvolve(rt, viewerId);
  const value = (from: Param): unknown[] => {
    if (from === "viewer") return [viewerId];
    if (from === "feed") return [feedId];
    return [plan.bounds[Number(from.slice("bound".length))].id];
  };
  let read: { ids: string[]; horizon: string | null; live: LiveState | null };
  if (rt.dialect === "sqlite") {
    const shape = cachedShape(`feed:sqlite:${plan.order}:${bounds}:${plan.limit}:${blocks}`, () => {
      const b = new ShapeBuilder("sqlite");
      const page = pageRows(b, plan, "e.status_id", visibleToFeedOwner(rt, blocks));
      const horizon = `select horizon_id, 1 from feed_horizons where feed_id = ${b.param("feed")}`;
      return { sql: `select status_id as id, 0 as horizon from (${page}) union all ${horizon}`, params: b.params };
    });
    const query = CompiledQuery.raw(shape.sql, shape.params.flatMap(value));
    const { rows } = await rt.db.executeQuery<{ id: string; horizon: 0 | 1 }>(query);
    const horizon = rows.find((r) => r.horizon === 1)?.id ?? null;
    read = { ids: rows.filter((r) => r.horizon === 0).map((r) => r.id), horizon, live: null };
  } else {
    const shape = cachedShape(`feed:pg:${plan.order}:${bounds}:${plan.limit}:${blocks}`, () =>
      feedShape(plan, visibleToFeedOwner(rt, blocks)),
    );
    read = await run(rt, shape, value, true);
  }
  // The entries come in no particular order. Ids are decimal numbers without leading zeros.
  const older = (a: string, b: string) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
  read.ids.sort(plan.order === "asc" ? older : (a, b) => older(b, a));
  return read;
}
