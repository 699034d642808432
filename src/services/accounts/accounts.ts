// Local accounts and the users who sign in to them: creating them, and finding accounts as others
// may see them.

import { sql } from "kysely";
import type { Db } from "../../db/index.ts";
import { ApiError, fieldError, notFound, validationFailed } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import { hashPassword } from "../../domain/secrets.ts";
import type { Runtime } from "../../runtime.ts";
import { insertAccount, localAccountRow, userRow } from "./account_row.ts";

/** How Mastodon's locale file names a user's attributes in error sentences. */
export const USER_ATTRIBUTE_LABELS: Record<string, string> = {
  email: "E-mail address",
  agreement: "Service agreement",
  reason: "Reason",
};

export interface NewLocalUser {
  username: string;
  email: string;
  password: string;
  /** Null or absent: no role but everyone's. */
  roleId?: string | null;
  confirmed?: boolean;
  approved?: boolean;
  locale?: string | null;
  reason?: string | null;
  ip?: string | null;
  dateOfBirth?: string | null;
  createdByApplicationId?: string | null;
  inviteId?: string | null;
  /** Runs inside the creating transaction (to queue the confirmation mail and issue a token with it). */
  afterCreate?: (trx: Db, userId: string) => Promise<void>;
}

export interface CreatedUser {
  accountId: string;
  userId: string;
}

/** Whether a username (among local accounts) and an email address are taken, ignoring case. */
export async function takenFields(db: Db, username: string, email: string) {
  const [account, user] = await Promise.all([
    db.selectFrom("accounts").select("id").where("acct_key", "=", `${username.toLowerCase()}@`).executeTakeFirst(),
    db.selectFrom("users").select("id").where("email", "=", email.toLowerCase()).executeTakeFirst(),
  ]);
  return { username: account !== undefined, email: user !== undefined };
}

async function throwIfTaken(db: Db, username: string, email: string): Promise<void> {
  const taken = await takenFields(db, username, email);
  if (!taken.username && !taken.email) return;
  throw validationFailed(
    {
      ...(taken.email ? { email: [fieldError.taken] } : {}),
      ...(taken.username ? { username: [fieldError.taken] } : {}),
    },
    USER_ATTRIBUTE_LABELS,
  );
}

/** Creates a local account, its counters and its user in one transaction. */
export async function createLocalUser(rt: Runtime, input: NewLocalUser): Promise<CreatedUser> {
  const now = new Date();
  const accountId = newId();
  const userId = newId();
  const passwordHash = await hashPassword(input.password);
  try {
    await rt.db.transaction().execute(async (trx) => {
      await throwIfTaken(trx, input.username, input.email);
      await insertAccount(trx, localAccountRow(rt.config, input.username, { id: accountId, created_at: now }));
      await trx
        .insertInto("users")
        .values(
          userRow(
            { id: userId, account_id: accountId, email: input.email.toLowerCase(), password_hash: passwordHash },
            {
              role_id: input.roleId ?? null,
              confirmed_at: input.confirmed === false ? null : now,
              approved: input.approved ?? true,
              locale: input.locale ?? null,
              sign_up_reason: input.reason ?? null,
              sign_up_ip: input.ip ?? null,
              date_of_birth: input.dateOfBirth ?? null,
              created_by_application_id: input.createdByApplicationId ?? null,
              invite_id: input.inviteId ?? null,
              created_at: now,
            },
          ),
        )
        .execute();
      await input.afterCreate?.(trx, userId);
    });
  } catch (error) {
    // Two sign-ups racing for one name: the loser hits a unique index, and hears "taken".
    if (!(error instanceof ApiError)) await throwIfTaken(rt.db, input.username, input.email);
    throw error;
  }
  return { accountId, userId };
}

/**
 * For queries on `accounts as a` left-joined with `users as u`: the accounts anyone may see, that is
 * remote ones, and local ones whose user is confirmed and approved (sign-ups still waiting are
 * not shown to anyone).
 */
export const LIVE_ACCOUNT = sql<boolean>`(u.id IS NULL OR (u.confirmed_at IS NOT NULL AND u.approved = ${true}))`;

/** Local accounts whose user is not confirmed or approved yet are not shown to anyone. */
async function isHiddenLocal(rt: Runtime, accountId: string): Promise<boolean> {
  const user = await rt.db
    .selectFrom("users")
    .select(["confirmed_at", "approved"])
    .where("account_id", "=", accountId)
    .executeTakeFirst();
  return user !== undefined && (user.confirmed_at === null || !user.approved);
}

/** An account as others may look it up: 404 when unknown or not yet live, 410 when suspended. */
export async function viewableAccount(rt: Runtime, id: string): Promise<{ id: string }> {
  const row = await rt.db.selectFrom("accounts").select(["id", "suspended_at"]).where("id", "=", id).executeTakeFirst();
  if (!row || (await isHiddenLocal(rt, row.id))) throw notFound();
  // What Mastodon 2.4 to 3.2 answered (`Rack::Utils::HTTP_STATUS_CODES[410]`).
  if (row.suspended_at) throw new ApiError(410, "Gone");
  return row;
}

/** Whether `domain` names this server (its LOCAL_DOMAIN or WEB_DOMAIN). */
export function isLocalDomain(rt: Runtime, domain: string | null | undefined): boolean {
  return !domain || [rt.config.localDomain, rt.config.webDomain].includes(domain.toLowerCase());
}

/** An address's username and domain, and the `acct_key` that finds it here. */
function addressKey(rt: Runtime, acct: string) {
  const [username = "", domain] = acct
    .trim()
    .replace(/^acct:/i, "")
    .replace(/^@/, "")
    .split("@");
  return {
    username,
    domain,
    key: `${username.toLowerCase()}@${isLocalDomain(rt, domain) ? "" : domain.toLowerCase()}`,
  };
}

/** `user`, `@user`, `acct:user@domain`, `user@ourdomain` or `user@remote.domain` (when known here). */
export async function lookupAccount(rt: Runtime, acct: string): Promise<{ id: string }> {
  const { username, domain, key } = addressKey(rt, acct);
  const row = await rt.db.selectFrom("accounts").select("id").where("acct_key", "=", key).executeTakeFirst();
  if (row) return viewableAccount(rt, row.id);
  // An account of another server is asked for there, and stored.
  const remote = isLocalDomain(rt, domain) || !username ? null : await rt.remote.account(rt, username, domain);
  if (!remote) throw notFound();
  return viewableAccount(rt, remote);
}

/**
 * The accounts among `accts` already known here that others may see, by address, in two queries
 * (for files of thousands of addresses); lookupAccount finds the others, asking their servers.
 */
export async function knownAccounts(rt: Runtime, accts: string[]): Promise<Map<string, string>> {
  const keys = new Map(accts.map((a) => [addressKey(rt, a).key, a]));
  if (keys.size === 0) return new Map();
  const rows = await rt.db
    .selectFrom("accounts")
    .select(["id", "acct_key"])
    .where("acct_key", "in", [...keys.keys()])
    .execute();
  const viewable = new Set(
    await viewableAccountIds(
      rt,
      rows.map((r) => r.id),
    ),
  );
  return new Map(rows.filter((r) => viewable.has(r.id)).map((r) => [keys.get(r.acct_key)!, r.id]));
}

/**
 * Ids of the accounts in `ids` that others may see, in the order asked (for
 * GET /api/v1/accounts?id[]=): unknown, suspended and not-yet-live accounts are left out.
 */
export async function viewableAccountIds(rt: Runtime, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await rt.db
    .selectFrom("accounts as a")
    .leftJoin("users as u", "u.account_id", "a.id")
    .select("a.id")
    .where("a.id", "in", ids)
    .where("a.suspended_at", "is", null)
    .where(LIVE_ACCOUNT)
    .execute();
  const found = new Set(rows.map((r) => r.id));
  return ids.filter((id) => found.has(id));
}

/** An account in any state, or a 404 (identity proofs and featured tags ask no more). */
export async function requireAccountExists(rt: Runtime, id: string): Promise<{ suspended: boolean }> {
  const row = await rt.db.selectFrom("accounts").select("suspended_at").where("id", "=", id).executeTakeFirst();
  if (!row) throw notFound();
  return { suspended: row.suspended_at !== null };
}

/**
 * An account named by `user`, `@user`, `user@domain`, or the URL of its profile or actor, as
 * POST /api/v1/follows takes it. Accounts of other servers are asked for there when new.
 */
export async function accountByReference(rt: Runtime, reference: string): Promise<{ id: string }> {
  const ref = reference.trim();
  if (/^https?:\/\//i.test(ref)) {
    const row = await rt.db
      .selectFrom("accounts")
      .select("id")
      .where((eb) => eb.or([eb("url", "=", ref), eb("uri", "=", ref)]))
      .executeTakeFirst();
    if (row) return viewableAccount(rt, row.id);
    const found = await rt.remote.url(rt, ref);
    if (!found || !("accountId" in found)) throw notFound();
    return viewableAccount(rt, found.accountId);
  }
  return lookupAccount(rt, ref.replace(/^acct:/i, ""));
}
