// The one place that builds an `accounts` row (and a local user's `users` row) with its defaults:
// for local accounts created here, and for the rows the tests and the benchmark seeds put in directly.
import type { Insertable } from "kysely";
import type { Config } from "../../config.ts";
import type { Db } from "../../db/index.ts";
import type { AccountsTable, UsersTable } from "../../db/schema.ts";
import { newId } from "../../domain/ids.ts";
import { urls } from "../../domain/urls.ts";
import { standingUnderBlock } from "../moderation/federation_policy.ts";

export type AccountRow = Insertable<AccountsTable> & { id: string };

/** What sets an account apart; every other column takes its default. */
export type AccountRowInput = Pick<Insertable<AccountsTable>, "username" | "domain" | "uri"> &
  Partial<Insertable<AccountsTable>>;

export function accountRow(input: AccountRowInput): AccountRow {
  const created = input.created_at ?? new Date();
  return {
    id: newId(),
    // The key lookups match: lowercase, and no domain for local accounts.
    acct_key: `${input.username.toLowerCase()}@${input.domain?.toLowerCase() ?? ""}`,
    url: null,
    inbox_url: null,
    shared_inbox_url: null,
    outbox_url: null,
    followers_url: null,
    following_url: null,
    featured_url: null,
    avatar_file: null,
    avatar_remote_url: null,
    header_file: null,
    header_remote_url: null,
    discoverable: null,
    public_key: null,
    private_key: null,
    moved_to_account_id: null,
    suspended_at: null,
    silenced_at: null,
    fetched_at: null,
    created_at: created,
    updated_at: created,
    ...input,
  };
}

/** A local account's row: its addresses are this server's. */
export function localAccountRow(
  config: Pick<Config, "origin">,
  username: string,
  columns: Partial<Insertable<AccountsTable>> = {},
): AccountRow {
  const u = urls(config);
  const actor = u.actor(username);
  return accountRow({
    username,
    domain: null,
    uri: u.accountUri(username),
    url: u.accountUrl(username),
    inbox_url: actor.inbox,
    shared_inbox_url: actor.sharedInbox,
    outbox_url: actor.outbox,
    followers_url: actor.followers,
    following_url: actor.following,
    featured_url: actor.featured,
    ...columns,
  });
}

/** A local user's row: confirmed and approved, unless `columns` say otherwise. */
export function userRow(
  input: Pick<Insertable<UsersTable>, "id" | "account_id" | "email" | "password_hash">,
  columns: Partial<Insertable<UsersTable>> = {},
): Insertable<UsersTable> {
  const now = columns.created_at ?? new Date();
  return {
    role_id: null,
    confirmed_at: now,
    confirmation_token_hash: null,
    approved: true,
    locale: null,
    sign_up_reason: null,
    sign_up_ip: null,
    date_of_birth: null,
    current_sign_in_at: null,
    created_at: now,
    updated_at: now,
    ...input,
    ...columns,
  };
}

/**
 * Inserts an account and its counters (all zero). An account of a server under a domain block
 * arrives silenced or suspended, as the block's older accounts are.
 */
export async function insertAccount(db: Db, row: AccountRow): Promise<string> {
  const standing = row.domain ? await standingUnderBlock(db, row.domain) : {};
  await db
    .insertInto("accounts")
    .values({
      ...row,
      silenced_at: row.silenced_at ?? standing.silenced_at ?? null,
      suspended_at: row.suspended_at ?? standing.suspended_at ?? null,
    })
    .execute();
  await db.insertInto("account_stats").values({ account_id: row.id, last_status_at: null }).execute();
  return row.id;
}
