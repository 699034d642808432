// What the Account entity is rendered from, loaded in batches: the profile (kept in memory until the
// account changes) and the counters (read fresh, or taken from a query that read them already).
import type { Selectable } from "kysely";
import type { AccountStatsTable, AccountsTable, Role } from "../../db/schema.ts";
import type { Runtime } from "../../runtime.ts";
import type { AccountCounters } from "../statuses/live_state.ts";
import { viewCaches } from "../view_caches.ts";

export type AccountRow = Selectable<AccountsTable> &
  Omit<Selectable<AccountStatsTable>, "account_id"> & {
    /** The role of a local account's user (null for remote accounts). */
    role: Role | null;
  };

export interface AccountView {
  /** The profile; its counters are as they were when it was read, `counters` has them now. */
  row: AccountRow;
  counters: AccountCounters | null;
  /** The account it moved to, when the row names one and it exists. */
  moved: AccountView | null;
}

/** Accounts with their counters, by id. Missing ids are simply absent from the map. */
export async function loadAccountRows(rt: Runtime, ids: readonly string[]): Promise<Map<string, AccountRow>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await rt.db
    .selectFrom("accounts as a")
    .leftJoin("account_stats as s", "s.account_id", "a.id")
    .leftJoin("users as u", "u.account_id", "a.id")
    .selectAll("a")
    .select(["s.followers_count", "s.following_count", "s.statuses_count", "s.last_status_at", "u.role"])
    .where("a.id", "in", unique)
    .execute();
  return new Map(
    rows.map((r) => [
      r.id,
      {
        ...r,
        followers_count: r.followers_count ?? 0,
        following_count: r.following_count ?? 0,
        statuses_count: r.statuses_count ?? 0,
      },
    ]),
  );
}

/** Profiles, from memory or one query. */
async function profiles(rt: Runtime, ids: readonly string[]): Promise<Map<string, AccountRow>> {
  const cache = viewCaches(rt).accounts;
  const out = new Map<string, AccountRow>();
  const missing: string[] = [];
  for (const id of new Set(ids)) {
    const hit = cache.get(id) as AccountRow | undefined;
    if (hit) out.set(id, hit);
    else missing.push(id);
  }
  for (const row of (await loadAccountRows(rt, missing)).values()) {
    cache.set(row.id, row);
    out.set(row.id, row);
  }
  return out;
}

/** Mastodon shows the day of an account's last status, not the moment. */
export function day(date: Date | null): string | null {
  return date ? date.toISOString().slice(0, 10) : null;
}

/**
 * Accounts by id, in the order given, without ids that do not exist. Counters come from `known`
 * (read along with other things by the caller) or from one query for the rest.
 */
export async function loadAccountViews(
  rt: Runtime,
  ids: readonly string[],
  known?: ReadonlyMap<string, AccountCounters>,
): Promise<Map<string, AccountView>> {
  const found = await profiles(rt, ids);
  const movedIds = [...found.values()].map((r) => r.moved_to_account_id).filter((id): id is string => id !== null);
  const moved = movedIds.length > 0 ? await profiles(rt, movedIds) : new Map<string, AccountRow>();
  const missing = [...new Set([...found.keys(), ...moved.keys()])].filter((id) => !known?.has(id));
  const stats =
    missing.length === 0
      ? []
      : await rt.db
          .selectFrom("account_stats")
          .select(["account_id", "followers_count", "following_count", "statuses_count", "last_status_at"])
          .where("account_id", "in", missing)
          .execute();
  const counters = new Map<string, AccountCounters>([
    ...(known ?? []),
    ...stats.map((s) => [s.account_id, { ...s, last_status_at: day(s.last_status_at) }] as const),
  ]);
  const view = (row: AccountRow, next: AccountView | null): AccountView => ({
    row,
    counters: counters.get(row.id) ?? null,
    moved: next,
  });
  const out = new Map<string, AccountView>();
  for (const id of ids) {
    const row = found.get(id);
    if (!row || out.has(id)) continue;
    const target = row.moved_to_account_id ? moved.get(row.moved_to_account_id) : undefined;
    out.set(id, view(row, target ? view(target, null) : null));
  }
  return out;
}
