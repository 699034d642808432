// Moving an account, as Mastodon does (AccountMigration, MoveService, the Move handler): a local
// account moves to another, here or elsewhere, once that one lists it in its `alsoKnownAs` (an
// alias). The old account then names the new one (`moved`, `movedTo`), its followers on other
// servers get a Move, and its followers here follow the new account instead (moves_job.ts). A
// Move from another server does the same for our followers of its actor. Once every 30 days.
import type { Db } from "../../db/index.ts";
import { unprocessable } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import { publishEvent } from "../../streaming/events.ts";
import { requireOwnPassword } from "../auth/credentials.ts";
import type { SessionUser } from "../auth/sessions.ts";
import { federate } from "../federation/outbox.ts";
import { findAccountByName, handleProblem } from "./aliases.ts";

/** Mastodon's AccountMigration::COOLDOWN_PERIOD. */
export const MOVE_COOLDOWN_MS = 30 * 86_400_000;

declare module "../../jobs/queue.ts" {
  interface JobPayloads {
    /** Our followers of `sourceId` follow `targetId` instead; blocks, mutes and notes carry over. */
    "accounts.move": { sourceId: string; targetId: string };
  }
}

export interface MoveState {
  /** `user@domain` (local: `user`) of the account this one moved to, when it has. */
  movedTo: string | null;
  /** The last move, and when the next one may be made (null: now). */
  lastMoveAt: Date | null;
  cooldownUntil: Date | null;
}

const acctOf = (row: { username: string; domain: string | null }) =>
  row.domain ? `${row.username}@${row.domain}` : row.username;

export async function moveState(rt: Runtime, accountId: string): Promise<MoveState> {
  const [account, last] = await Promise.all([
    rt.db
      .selectFrom("accounts as a")
      .leftJoin("accounts as t", "t.id", "a.moved_to_account_id")
      .select(["t.username", "t.domain"])
      .where("a.id", "=", accountId)
      .executeTakeFirst(),
    rt.db
      .selectFrom("account_migrations")
      .select("created_at")
      .where("account_id", "=", accountId)
      .orderBy("created_at", "desc")
      .limit(1)
      .executeTakeFirst(),
  ]);
  const until = last ? new Date(last.created_at.getTime() + MOVE_COOLDOWN_MS) : null;
  return {
    movedTo: account?.username ? acctOf({ username: account.username, domain: account.domain ?? null }) : null,
    lastMoveAt: last?.created_at ?? null,
    cooldownUntil: until && until.getTime() > Date.now() ? until : null,
  };
}

/** A member moving their own account from the settings page, with their password. */
export async function moveOwnAccount(
  rt: Runtime,
  user: SessionUser,
  o: { acct: string; password: string; ip: string | null },
): Promise<{ acct: string }> {
  await requireOwnPassword(rt, user, o.password, o.ip);
  return moveAccount(rt, user.accountId, o.acct);
}

/**
 * Moves the local account `accountId` to the account `name` names, whose actor is read again first
 * (a remote one) so that an alias added a moment ago counts. `cooldown: false` (the operator's
 * command) allows a move within 30 days of the last.
 */
export async function moveAccount(
  rt: Runtime,
  accountId: string,
  name: string,
  o: { cooldown?: boolean } = {},
): Promise<{ acct: string }> {
  const source = await rt.db
    .selectFrom("accounts")
    .select(["id", "uri", "domain", "moved_to_account_id"])
    .where("id", "=", accountId)
    .executeTakeFirst();
  if (!source || source.domain !== null) throw unprocessable("Validation failed: Only a local account can move");
  if (o.cooldown !== false && (await moveState(rt, accountId)).cooldownUntil) {
    throw unprocessable("Validation failed: You have moved your account recently; wait 30 days between moves");
  }
  const found = await findAccountByName(rt, name);
  if (!found) throw handleProblem("ERR_NOT_FOUND", "can't be found");
  if (found.domain !== null && !(await rt.remote.refresh(rt, found.id).catch(() => false))) {
    throw handleProblem("ERR_UNREADABLE", "could not be read from its server");
  }
  if (found.id === accountId) throw handleProblem("ERR_SELF", "cannot be your own account");
  if (source.moved_to_account_id === found.id) {
    throw handleProblem("ERR_ALREADY_MOVED", "is the account this one has already moved to");
  }
  if (!(await listsAsAlias(rt.db, found.id, source.uri))) {
    throw handleProblem("ERR_NO_ALIAS", "does not name this account as an alias: add it there first");
  }
  const followers = await rt.db
    .selectFrom("account_stats")
    .select("followers_count")
    .where("account_id", "=", accountId)
    .executeTakeFirst();
  await rt.db.transaction().execute(async (trx) => {
    const migrationId = newId();
    await trx
      .insertInto("account_migrations")
      .values({
        id: migrationId,
        account_id: accountId,
        acct: found.acct,
        target_account_id: found.id,
        followers_count: followers?.followers_count ?? 0,
        created_at: new Date(),
      })
      .execute();
    await trx.updateTable("accounts").set({ moved_to_account_id: found.id }).where("id", "=", accountId).execute();
    await rt.queue.enqueue("accounts.move", { sourceId: accountId, targetId: found.id }, {}, trx);
    await federate(rt, trx, accountId, { type: "UpdateActor", accountId });
    const blockers = await remoteBlockers(trx, accountId);
    const move = { type: "Move", accountId, targetId: found.id, migrationId, blockers } as const;
    await federate(rt, trx, accountId, move, blockers);
  });
  await publishEvent(rt, "account.changed", { id: accountId });
  return { acct: found.acct };
}

/** Ends the forwarding of a moved local account (Mastodon's "cancel redirect"); followers stay where they went. */
export async function cancelMove(rt: Runtime, accountId: string): Promise<void> {
  await rt.db.transaction().execute(async (trx) => {
    const changed = await trx
      .updateTable("accounts")
      .set({ moved_to_account_id: null })
      .where("id", "=", accountId)
      .where("domain", "is", null)
      .where("moved_to_account_id", "is not", null)
      .executeTakeFirst();
    if (Number(changed.numUpdatedRows) > 0) await federate(rt, trx, accountId, { type: "UpdateActor", accountId });
  });
  await publishEvent(rt, "account.changed", { id: accountId });
}

/**
 * A Move from another server, its actor `originId` (who signed it) moving to `targetId` (read again
 * just now): taken when the target lists the origin among its own and is not suspended. The origin
 * then names the target, and our followers of the origin follow the target; a Move received again
 * finds nobody left to move, and changes nothing.
 */
export async function receiveMove(rt: Runtime, originId: string, targetId: string): Promise<boolean> {
  if (originId === targetId) return false;
  const origin = await rt.db
    .selectFrom("accounts")
    .select(["uri", "domain", "moved_to_account_id"])
    .where("id", "=", originId)
    .executeTakeFirst();
  if (!origin || origin.domain === null || !(await listsAsAlias(rt.db, targetId, origin.uri))) return false;
  await rt.db.transaction().execute(async (trx) => {
    if (origin.moved_to_account_id !== targetId) {
      await trx.updateTable("accounts").set({ moved_to_account_id: targetId }).where("id", "=", originId).execute();
    }
    await rt.queue.enqueue("accounts.move", { sourceId: originId, targetId }, {}, trx);
  });
  if (origin.moved_to_account_id !== targetId) await publishEvent(rt, "account.changed", { id: originId });
  return true;
}

/** Whether `accountId` (not suspended) names `uri` in its `alsoKnownAs`. */
async function listsAsAlias(db: Db, accountId: string, uri: string): Promise<boolean> {
  const row = await db
    .selectFrom("accounts")
    .select(["also_known_as", "suspended_at"])
    .where("id", "=", accountId)
    .executeTakeFirst();
  return row !== undefined && row.suspended_at === null && row.also_known_as.includes(uri);
}

/** Accounts of other servers that block `accountId`: a Move reaches them too, so that their blocks carry over. */
async function remoteBlockers(db: Db, accountId: string): Promise<string[]> {
  const rows = await db
    .selectFrom("blocks as b")
    .innerJoin("accounts as a", "a.id", "b.account_id")
    .select("a.id")
    .where("b.target_account_id", "=", accountId)
    .where("a.domain", "is not", null)
    .execute();
  return rows.map((r) => r.id);
}
