// What changes all the time about the statuses of a page, in one query (one round trip): their
// counters, their authors' counters, and the viewer's favourites, boosts, bookmarks, pins and muted
// threads. Every timeline page runs it, so its SQL is written out here and kept per shape rather
// than built with Kysely on every call: building that union cost a tenth of a timeline request.
import { CompiledQuery } from "kysely";
import type { Dialect } from "../db/index.ts";
import { placeholder } from "../db/raw.ts";
import type { Runtime } from "../runtime.ts";
import type { AccountCounters } from "./account.ts";

export interface StatusCounters {
  replies_count: number;
  reblogs_count: number;
  favourites_count: number;
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

interface Shape {
  sql: string;
  /** Where the parameters come from, in order: the viewer's id, or a list of ids. */
  params: (List | "viewer")[];
}

/**
 * One SQL text per dialect and list lengths (per dialect only on PostgreSQL, where lists are arrays).
 * The answer is one text, `kind,id,…` entries joined by `;`: reading one value costs the driver far
 * less than reading a row of six for each status, account and flag.
 */
function shape(dialect: Dialect, lengths: Record<List, number>, withViewer: boolean): Shape {
  const params: Shape["params"] = [];
  const param = (from: List | "viewer") => {
    params.push(from);
    return placeholder(dialect, params.length);
  };
  const isIn = (column: string, list: List) => {
    if (dialect === "postgres") return `${column} = any(${param(list)})`;
    // One entry in `params` stands for the whole list, bound as one `?` per value.
    params.push(list);
    return `${column} in (${Array.from({ length: lengths[list] }, () => "?").join(", ")})`;
  };
  const entry = (kind: string, columns: string[]) => [`'${kind}'`, ...columns].join(" || ',' || ");
  const flag = (kind: string, table: string, column: string, list: List, extra = "") =>
    `select ${entry(kind, [column])} as e from ${table}` +
    ` where account_id = ${param("viewer")} and ${isIn(column, list)}${extra}`;
  const parts = [
    `select ${entry("s", ["status_id", "replies_count", "reblogs_count", "favourites_count"])} as e` +
      ` from status_stats where ${isIn("status_id", "statuses")}`,
  ];
  if (lengths.accounts > 0) {
    const counters = ["account_id", "followers_count", "following_count", "statuses_count"];
    // The day (UTC) of the last status, which is all the entity shows.
    const day =
      dialect === "postgres"
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
    if (lengths.own > 0) parts.push(flag("p", "status_pins", "status_id", "own"));
    if (lengths.conversations > 0) parts.push(flag("m", "conversation_mutes", "conversation_id", "conversations"));
  }
  const joined = dialect === "postgres" ? "string_agg(e, ';')" : "group_concat(e, ';')";
  return { sql: `select ${joined} as entries from (${parts.join(" union all ")}) as live`, params };
}

const shapes = new Map<string, Shape>();
const MAX_SHAPES = 2000;

function shapeFor(dialect: Dialect, lengths: Record<List, number>, withViewer: boolean): Shape {
  const key =
    dialect === "postgres"
      ? `pg:${lengths.accounts > 0}:${lengths.conversations > 0}:${lengths.own > 0}:${withViewer}`
      : `${lengths.statuses}:${lengths.accounts}:${lengths.conversations}:${lengths.own}:${withViewer}`;
  let found = shapes.get(key);
  if (!found) {
    if (shapes.size >= MAX_SHAPES) shapes.clear();
    found = shape(dialect, lengths, withViewer);
    shapes.set(key, found);
  }
  return found;
}

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
  const lengths = {
    statuses: statusIds.length,
    accounts: accountIds.length,
    conversations: lists.conversations.length,
    own: lists.own.length,
  };
  const { sql, params } = shapeFor(rt.dialect, lengths, viewer !== null);
  const values = params.flatMap((from): unknown[] =>
    from === "viewer" ? [viewer!.id] : rt.dialect === "postgres" ? [lists[from]] : lists[from],
  );
  const { rows } = await rt.db.executeQuery<{ entries: string | null }>(CompiledQuery.raw(sql, values));

  const stats = new Map<string, StatusCounters>();
  const accounts = new Map<string, AccountCounters>();
  const byKind: Record<string, Set<string>> = { f: new Set(), b: new Set(), p: new Set(), r: new Set(), m: new Set() };
  for (const entry of rows[0]?.entries?.split(";") ?? []) {
    const [kind, id, a, b, c, d] = entry.split(",");
    if (kind === "s") {
      stats.set(id, { replies_count: Number(a), reblogs_count: Number(b), favourites_count: Number(c) });
    } else if (kind === "c") {
      accounts.set(id, {
        followers_count: Number(a),
        following_count: Number(b),
        statuses_count: Number(c),
        last_status_at: d || null,
      });
    } else {
      byKind[kind]?.add(id);
    }
  }
  const flags = viewer
    ? { favourited: byKind.f, bookmarked: byKind.b, pinned: byKind.p, reblogged: byKind.r, muted: byKind.m }
    : null;
  return { stats, accounts, flags };
}
