// What the services tell other servers: each local action Mastodon federates becomes a
// `federation.distribute` job, added in the same transaction as the change. The job (in
// src/federation/distribute.ts) builds the activity from the rows when it runs, finds who must
// receive it, and adds one delivery job per inbox.
import type { Db } from "../../db/index.ts";
import type { Runtime } from "../../runtime.ts";

/** A local action to federate, named by the rows it concerns. */
export type Outgoing =
  | { type: "Create" | "Update" | "Delete"; statusId: string }
  | { type: "Announce"; boostId: string }
  /** The boost's row is gone when this runs: its URI travels with it. */
  | { type: "UndoAnnounce"; accountId: string; boostUri: string; statusId: string }
  | { type: "Like" | "UndoLike"; accountId: string; statusId: string }
  /** `followUri`: the Follow's id, kept on the follow (request) row for the Accept to name. */
  | { type: "Follow" | "UndoFollow"; accountId: string; targetId: string; followUri: string | null }
  | { type: "Accept" | "Reject"; accountId: string; followerId: string; followUri: string | null }
  | { type: "Block" | "UndoBlock"; accountId: string; targetId: string }
  | { type: "UpdateActor"; accountId: string }
  /** The account moved to `targetId` (Mastodon's Move, to its followers and the `blockers` of other servers). */
  | { type: "Move"; accountId: string; targetId: string; migrationId: string; blockers: string[] }
  /** The account is suspended: other servers remove it (Mastodon's Delete of the actor). */
  | { type: "DeleteActor"; accountId: string }
  | { type: "Vote"; accountId: string; pollId: string; choices: number[] }
  /** A status pinned to (or unpinned from) the account's featured collection. */
  | { type: "Add" | "Remove"; accountId: string; statusId: string }
  /** The instance actor's Follow of the public collection sent to a relay's inbox, or its Undo (relays.ts). */
  | { type: "RelayFollow" | "RelayUndo"; inbox: string; followUri: string }
  /** A report sent to other servers by the instance actor, to the servers of the remote `recipients`. */
  | { type: "Flag"; reportId: string; recipients: string[] }
  /** A local quote of a remote status asks its author (FEP-044f); a revocation deletes the stamp. */
  | { type: "QuoteRequest" | "RevokeQuote"; quoteId: string }
  /** The answer to a remote QuoteRequest: `quoteId` names the accepted quote, or null for a Reject. */
  | {
      type: "AcceptQuote" | "RejectQuote";
      accountId: string;
      requesterId: string;
      requestUri: string;
      instrumentUri: string;
      quotedStatusId: string;
      quoteId: string | null;
    };

declare module "../../jobs/queue.ts" {
  interface JobPayloads {
    /** Builds the activity of a local action and adds a delivery per receiving inbox. */
    "federation.distribute": { outgoing: Outgoing; at: string };
  }
}

/**
 * Adds the job that federates `outgoing`, in the transaction `db` of the change, when `actorId` is
 * local and someone on another server should hear of it: a remote follower of the actor, or one of
 * the `involved` accounts (the target, the author of the status, those it mentions) being remote,
 * or, for a status and its boost, a relay that accepted this server's Follow. A server that does
 * not federate pays two indexed lookups (three for a status) and no job.
 */
export async function federate(
  rt: Runtime,
  db: Db,
  actorId: string,
  outgoing: Outgoing,
  involved: readonly string[] = [],
): Promise<void> {
  const accounts = await db
    .selectFrom("accounts")
    .select(["id", "domain"])
    .where("id", "in", [actorId, ...involved])
    .execute();
  const actor = accounts.find((a) => a.id === actorId);
  if (!actor || actor.domain !== null) return;
  // An account's deletion goes to every server that knows it, which only the job looks for (an
  // account is deleted seldom enough): any, once this server knows another server's account.
  const reachesRemote =
    outgoing.type === "DeleteActor"
      ? await knowsRemoteAccounts(db)
      : accounts.some((a) => a.domain !== null) ||
        (await hasRemoteFollowers(db, actorId)) ||
        (RELAYED.has(outgoing.type) && (await followsRelays(db)));
  if (!reachesRemote) return;
  await rt.queue.enqueue("federation.distribute", { outgoing, at: new Date().toISOString() }, { maxAttempts: 8 }, db);
}

/** What accepted relays receive of a public status (the job checks the visibility), as Mastodon's StatusReachFinder. */
const RELAYED = new Set<Outgoing["type"]>(["Create", "Update", "Delete", "Announce"]);

/** Whether a relay accepted this server's Follow. */
async function followsRelays(db: Db): Promise<boolean> {
  const row = await db.selectFrom("relays").select("id").where("state", "=", "accepted").limit(1).executeTakeFirst();
  return row !== undefined;
}

/** Whether this server has stored any account of another server. */
async function knowsRemoteAccounts(db: Db): Promise<boolean> {
  const row = await db.selectFrom("accounts").select("id").where("domain", "is not", null).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** Whether anyone on another server follows `accountId`. */
async function hasRemoteFollowers(db: Db, accountId: string): Promise<boolean> {
  const row = await db
    .selectFrom("follows as f")
    .innerJoin("accounts as a", "a.id", "f.account_id")
    .select("f.id")
    .where("f.target_account_id", "=", accountId)
    .where("a.domain", "is not", null)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Adds the job that federates `outgoing` as the instance actor (which names no one of ours), in the transaction `db`. */
export async function federateAsInstance(rt: Runtime, db: Db, outgoing: Outgoing): Promise<void> {
  await rt.queue.enqueue("federation.distribute", { outgoing, at: new Date().toISOString() }, { maxAttempts: 8 }, db);
}
