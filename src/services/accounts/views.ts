// What the Account entity is rendered from, loaded in batches: the profile (kept in memory until the
// account changes) and the counters (read fresh, or taken from a query that read them already).
import type { Selectable } from "kysely";
import type { AccountStatsTable, AccountsTable, UserSettings } from "../../db/schema.ts";
import type { UserRole } from "../../domain/roles.ts";
import type { Runtime } from "../../runtime.ts";
import { type CustomEmoji, emojisIn, localEmojis } from "../emojis/custom_emojis.ts";
import { type RemoteEmoji, remoteEmojisUsed } from "../emojis/remote_emojis.ts";
import { rolesOf } from "../roles/lookup.ts";
import type { AccountCounters } from "../statuses/live_state.ts";
import { throughCache, viewCaches } from "../view_caches.ts";

export type AccountRow = Selectable<AccountsTable> &
  Omit<Selectable<AccountStatsTable>, "account_id"> & {
    /** The role of a local account's user (null for everyone's, and for remote accounts). */
    role_id: string | null;
  };

export interface AccountView {
  /** The profile; its counters are as they were when it was read, `counters` has them now. */
  row: AccountRow;
  counters: AccountCounters | null;
  /** The account it moved to, when the row names one and it exists. */
  moved: AccountView | null;
  /** The custom emojis its name, bio and fields use (its own server's, for a remote account). */
  emojis: (CustomEmoji | RemoteEmoji)[];
  /** The user's role, when they have one beyond everyone's. */
  role: UserRole | null;
}

/** The texts of a profile that may use custom emojis. */
export const profileTexts = (row: AccountRow) => [
  row.display_name,
  row.note,
  ...row.fields.flatMap((f) => [f.name, f.value]),
];

/**
 * The custom emojis an account's name, bio and fields use: of `emojis` (localEmojis) for a local
 * account, of `remote` (remoteEmojisUsed) for another server's.
 */
export function accountEmojis(
  emojis: ReadonlyMap<string, CustomEmoji>,
  row: AccountRow,
  remote?: ReadonlyMap<string, ReadonlyMap<string, RemoteEmoji>>,
): (CustomEmoji | RemoteEmoji)[] {
  return row.domain === null
    ? emojisIn(emojis, ...profileTexts(row))
    : emojisIn(remote?.get(row.domain), ...profileTexts(row));
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
    .select(["s.followers_count", "s.following_count", "s.statuses_count", "s.last_status_at", "u.role_id"])
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
const profiles = (rt: Runtime, ids: readonly string[]) =>
  throughCache(viewCaches(rt).accounts, ids, (missing) => loadAccountRows(rt, missing));

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
  const [found, emojis, roleOf] = await Promise.all([profiles(rt, ids), localEmojis(rt), rolesOf(rt)]);
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
  const remoteEmojis = await remoteEmojisUsed(
    rt.db,
    [...found.values(), ...moved.values()].map((row) => ({ domain: row.domain, texts: profileTexts(row) })),
  );
  const counters = new Map<string, AccountCounters>([
    ...(known ?? []),
    ...stats.map((s) => [s.account_id, { ...s, last_status_at: day(s.last_status_at) }] as const),
  ]);
  const view = (row: AccountRow, next: AccountView | null): AccountView => ({
    row,
    counters: counters.get(row.id) ?? null,
    moved: next,
    emojis: accountEmojis(emojis, row, remoteEmojis),
    role: row.role_id === null ? null : roleOf(row.role_id),
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

/** One account by id, or null when it does not exist. */
export async function loadAccountView(rt: Runtime, id: string): Promise<AccountView | null> {
  return (await loadAccountViews(rt, [id])).get(id) ?? null;
}

/** What the CredentialAccount (the caller's own account) is rendered from. */
export interface CredentialView {
  /** Read fresh: the owner has just changed it, perhaps. */
  row: AccountRow;
  emojis: (CustomEmoji | RemoteEmoji)[];
  settings: UserSettings;
  role: UserRole;
  /** Counted up to 40, as Mastodon counts them. */
  followRequestsCount: number;
  /** The account it moved to, when it has. */
  moved: AccountView | null;
}

export async function loadCredentialView(rt: Runtime, userId: string): Promise<CredentialView> {
  const user = await rt.db
    .selectFrom("users")
    .select(["account_id", "settings", "role_id"])
    .where("id", "=", userId)
    .executeTakeFirstOrThrow();
  const [rows, requests, emojis, roleOf] = await Promise.all([
    loadAccountRows(rt, [user.account_id]),
    rt.db
      .selectFrom((db) =>
        db
          .selectFrom("follow_requests")
          .select("id")
          .where("target_account_id", "=", user.account_id)
          .limit(40)
          .as("r"),
      )
      .select((eb) => eb.fn.countAll().as("n"))
      .executeTakeFirstOrThrow(),
    localEmojis(rt),
    rolesOf(rt),
  ]);
  const row = rows.get(user.account_id)!;
  const moved = row.moved_to_account_id ? await loadAccountView(rt, row.moved_to_account_id) : null;
  return {
    row,
    moved,
    emojis: accountEmojis(emojis, row),
    settings: user.settings,
    role: roleOf(user.role_id),
    followRequestsCount: Number(requests.n),
  };
}
