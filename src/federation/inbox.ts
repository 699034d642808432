// The inbox listeners: each activity another server sends, after Fedify has checked its signature
// (and put it in a job), handed to the services as the action of its remote actor. Every listener
// is idempotent: a redelivered activity finds its work done and changes nothing.
import type { Federation, InboxContext } from "@fedify/fedify";
import {
  Accept,
  type Activity,
  Add,
  Announce,
  Block,
  Create,
  Delete,
  Flag,
  Follow,
  isActor,
  Like,
  Move,
  Note,
  QuoteRequest,
  Reject,
  Remove,
  Undo,
  Update,
} from "@fedify/fedify/vocab";
import { ApiError } from "../domain/errors.ts";
import { logger } from "../log.ts";
import type { Runtime } from "../runtime.ts";
import { receiveMove } from "../services/accounts/moves.ts";
import { federate } from "../services/federation/outbox.ts";
import { isAcceptedRelay, relayAnswered } from "../services/federation/relays.ts";
import { recordContact } from "../services/federation/server_health.ts";
import { receiveReport } from "../services/moderation/reports.ts";
import { block, unblock } from "../services/relationships/blocks.ts";
import {
  authorizeFollowRequest,
  follow,
  rejectFollowRequest,
  removeFromFollowers,
  unfollow,
} from "../services/relationships/follows.ts";
import { deleteStatus } from "../services/statuses/delete.ts";
import { favourite, reblog, unfavourite, unreblog } from "../services/statuses/interactions.ts";
import { addRemotePin, removeRemotePin } from "../services/statuses/remote_pins.ts";
import "./activity_readings.ts";
import { INSTANCE_ACTOR } from "./actor.ts";
import { localAccountByUsername } from "./local_rows.ts";
import { peerPolicy, refused } from "./peers.ts";
import { onQuoteAccept, onQuoteReject, onQuoteRequest, onStampDelete } from "./quotes.ts";
import { receivedJson } from "./received.ts";
import { accountByUri, storeActor } from "./remote_accounts.ts";
import { isStatusObject, statusByUri, statusFromUri, storeStatus, updateStatus } from "./remote_statuses.ts";
import { recordRemoteVote } from "./remote_votes.ts";

const log = logger("federation");

type Ctx = InboxContext<Runtime>;

/** The stored account of the activity's actor (fetched when new). */
async function sender(ctx: Ctx, activity: Activity): Promise<string | null> {
  if (!activity.actorId) return null;
  return accountByUri(ctx.data, ctx, activity.actorId.href);
}

/** The local account an actor URI names, or null. */
async function localAccountOf(ctx: Ctx, uri: URL | null): Promise<string | null> {
  if (!uri) return null;
  const parsed = ctx.parseUri(uri);
  if (parsed?.type !== "actor" || parsed.identifier === INSTANCE_ACTOR) return null;
  return (await localAccountByUsername(ctx.data, parsed.identifier))?.id ?? null;
}

/** The local status an object URI names (or a stored remote one), or null. */
async function storedStatusId(ctx: Ctx, uri: URL | null): Promise<string | null> {
  if (!uri) return null;
  const row = await statusByUri(ctx.data.db, uri.href);
  return row && !row.deleted_at ? row.id : null;
}

/** Runs a service call; a refusal (a 4xx of the API) means there is nothing to do. */
async function refusedIsDone(work: () => Promise<unknown>): Promise<boolean> {
  try {
    await work();
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.status < 500) return false;
    throw error;
  }
}

async function onFollow(ctx: Ctx, activity: Follow): Promise<void> {
  const rt = ctx.data;
  const [followerId, targetId] = await Promise.all([sender(ctx, activity), localAccountOf(ctx, activity.objectId)]);
  if (!followerId || !targetId || !activity.id) return;
  const followUri = activity.id.href;
  // This very Follow was taken already, and answered then. (A new Follow of an account followed
  // already is answered again, as Mastodon does: its server may have lost the first Accept.)
  const taken = await rt.db
    .selectFrom("follows")
    .select("id")
    .where("account_id", "=", followerId)
    .where("target_account_id", "=", targetId)
    .where("uri", "=", followUri)
    .executeTakeFirst();
  if (taken) return;
  const followed = await refusedIsDone(() => follow(rt, followerId, targetId, {}));
  if (!followed) {
    await federate(rt, rt.db, targetId, { type: "Reject", accountId: targetId, followerId, followUri }, [followerId]);
    return;
  }
  for (const table of ["follows", "follow_requests"] as const) {
    await rt.db
      .updateTable(table)
      .set({ uri: followUri })
      .where("account_id", "=", followerId)
      .where("target_account_id", "=", targetId)
      .execute();
  }
  const accepted = await rt.db
    .selectFrom("follows")
    .select("id")
    .where("account_id", "=", followerId)
    .where("target_account_id", "=", targetId)
    .executeTakeFirst();
  // An open account accepts at once; a locked one when its owner does (follows.ts).
  if (accepted) {
    await federate(rt, rt.db, targetId, { type: "Accept", accountId: targetId, followerId, followUri }, [followerId]);
  }
}

/** The local follower of the Follow an Accept or Reject answers: by the Follow's id, or the embedded Follow's actor. */
async function answeredFollower(ctx: Ctx, activity: Accept | Reject, targetId: string): Promise<string | null> {
  if (activity.objectId) {
    for (const table of ["follow_requests", "follows"] as const) {
      const row = await ctx.data.db
        .selectFrom(table)
        .select("account_id")
        .where("uri", "=", activity.objectId.href)
        .where("target_account_id", "=", targetId)
        .executeTakeFirst();
      if (row) return row.account_id;
    }
  }
  const object = await activity.getObject({ crossOrigin: "trust" }).catch(() => null);
  return object instanceof Follow ? localAccountOf(ctx, object.actorId) : null;
}

async function onAccept(ctx: Ctx, activity: Accept): Promise<void> {
  // A relay's answer names the Follow sent to it, as Mastodon matches it: by that Follow's id alone.
  if (activity.objectId && (await relayAnswered(ctx.data, activity.objectId.href, "accepted"))) return;
  const targetId = await sender(ctx, activity);
  if (!targetId) return;
  if (await onQuoteAccept(ctx.data, activity, targetId)) return;
  const followerId = await answeredFollower(ctx, activity, targetId);
  if (!followerId) return;
  // Accepted already (a redelivery): nothing is pending, nothing changes.
  await refusedIsDone(() => authorizeFollowRequest(ctx.data, targetId, followerId));
}

async function onReject(ctx: Ctx, activity: Reject): Promise<void> {
  if (activity.objectId && (await relayAnswered(ctx.data, activity.objectId.href, "rejected"))) return;
  const targetId = await sender(ctx, activity);
  if (!targetId) return;
  if (await onQuoteReject(ctx.data, activity, targetId)) return;
  const followerId = await answeredFollower(ctx, activity, targetId);
  if (!followerId) return;
  const rejected = await refusedIsDone(() => rejectFollowRequest(ctx.data, targetId, followerId));
  if (!rejected) await refusedIsDone(() => removeFromFollowers(ctx.data, targetId, followerId));
}

async function onUndo(ctx: Ctx, activity: Undo): Promise<void> {
  const rt = ctx.data;
  const actorId = await sender(ctx, activity);
  if (!actorId) return;
  const object = await activity.getObject({ crossOrigin: "trust" }).catch(() => null);
  const undoable =
    object instanceof Follow || object instanceof Like || object instanceof Announce || object instanceof Block;
  // Only the actor of an activity may take it back.
  if (!undoable || object.actorId?.href !== activity.actorId?.href) return;
  if (object instanceof Follow) {
    const targetId = await localAccountOf(ctx, object.objectId);
    if (targetId) await refusedIsDone(() => unfollow(rt, actorId, targetId));
  } else if (object instanceof Block) {
    const targetId = await localAccountOf(ctx, object.objectId);
    if (targetId) await refusedIsDone(() => unblock(rt, actorId, targetId));
  } else if (object instanceof Like) {
    const statusId = await storedStatusId(ctx, object.objectId);
    if (statusId) await refusedIsDone(() => unfavourite(rt, actorId, statusId));
  } else if (object instanceof Announce && object.id) {
    const boost = await rt.db
      .selectFrom("statuses")
      .select("reblog_of_id")
      .where("uri", "=", object.id.href)
      .where("account_id", "=", actorId)
      .executeTakeFirst();
    if (boost?.reblog_of_id) await refusedIsDone(() => unreblog(rt, actorId, boost.reblog_of_id!));
  }
}

async function onCreate(ctx: Ctx, activity: Create): Promise<void> {
  const rt = ctx.data;
  const object = await activity.getObject({ crossOrigin: "trust" }).catch(() => null);
  if (!isStatusObject(object)) return;
  if (object.attributionId?.href !== activity.actorId?.href) return;
  // A vote: a Note named after an option, in reply to a local poll, without content.
  if (object instanceof Note && object.name && !object.content && object.replyTargetId) {
    const actorId = await sender(ctx, activity);
    if (actorId) await recordRemoteVote(rt, actorId, object.replyTargetId.href, String(object.name));
    return;
  }
  // The status's author is the actor, whom storeStatus reads (or fetches) as it would the sender.
  // The activity's JSON as it arrived holds the object's terms that Fedify does not read.
  await storeStatus(rt, ctx, object, 0, receivedJson(activity.id)?.object);
}

async function onUpdate(ctx: Ctx, activity: Update): Promise<void> {
  const rt = ctx.data;
  const actorId = await sender(ctx, activity);
  if (!actorId) return;
  const object = await activity.getObject({ crossOrigin: "trust" }).catch(() => null);
  if (isActor(object)) {
    if (object.id?.href === activity.actorId?.href) await storeActor(rt, object, ctx);
  } else if (isStatusObject(object)) {
    await updateStatus(rt, ctx, object, actorId);
  }
}

async function onDelete(ctx: Ctx, activity: Delete): Promise<void> {
  const rt = ctx.data;
  if (!activity.objectId || !activity.actorId) return;
  const actor = await rt.db
    .selectFrom("accounts")
    .select(["id", "domain"])
    .where("uri", "=", activity.actorId.href)
    .executeTakeFirst();
  if (!actor || actor.domain === null) return;
  if (activity.objectId.href === activity.actorId.href) {
    // The account is gone from its server: it is suspended here, and its posts no longer show.
    await rt.db
      .updateTable("accounts")
      .set({ suspended_at: new Date() })
      .where("id", "=", actor.id)
      .where("suspended_at", "is", null)
      .execute();
    return;
  }
  if (await onStampDelete(rt, activity.objectId.href, actor.id)) return;
  const status = await statusByUri(rt.db, activity.objectId.href);
  if (!status || status.deleted_at || status.account_id !== actor.id) return;
  await refusedIsDone(() => deleteStatus(rt, actor.id, status.id));
}

async function inboxOf(rt: Runtime, accountId: string): Promise<string | null> {
  const row = await rt.db.selectFrom("accounts").select("inbox_url").where("id", "=", accountId).executeTakeFirst();
  return row?.inbox_url ?? null;
}

async function onAnnounce(ctx: Ctx, activity: Announce): Promise<void> {
  const rt = ctx.data;
  const actorId = await sender(ctx, activity);
  if (!actorId || !activity.id || !activity.objectId) return;
  const statusId = await statusFromUri(rt, ctx, activity.objectId.href);
  if (!statusId) return;
  // A relay passes on another server's post: the post is taken in (and so reaches the federated
  // timeline), but the relay's Announce is no boost anyone should see.
  if (await isAcceptedRelay(rt, await inboxOf(rt, actorId))) return;
  await refusedIsDone(() => reblog(rt, actorId, statusId, undefined, activity.id!.href));
}

async function onLike(ctx: Ctx, activity: Like): Promise<void> {
  const actorId = await sender(ctx, activity);
  const statusId = await storedStatusId(ctx, activity.objectId);
  if (!actorId || !statusId) return;
  await refusedIsDone(() => favourite(ctx.data, actorId, statusId));
}

async function onQuote(ctx: Ctx, activity: QuoteRequest): Promise<void> {
  const actorId = await sender(ctx, activity);
  if (actorId) await onQuoteRequest(ctx, activity, actorId);
}

async function onBlock(ctx: Ctx, activity: Block): Promise<void> {
  const [actorId, targetId] = await Promise.all([sender(ctx, activity), localAccountOf(ctx, activity.objectId)]);
  if (!actorId || !targetId) return;
  await refusedIsDone(() => block(ctx.data, actorId, targetId));
}

/**
 * The sender's status an Add or Remove aimed at the sender's own featured collection names (a pin,
 * or its end), with the sender's account; null for anything else (an Add of a featured hashtag).
 */
async function featuredChange(ctx: Ctx, activity: Add | Remove) {
  const rt = ctx.data;
  const accountId = await sender(ctx, activity);
  if (!accountId || !activity.targetId || !activity.objectId) return null;
  const account = await rt.db
    .selectFrom("accounts")
    .select("featured_url")
    .where("id", "=", accountId)
    .executeTakeFirst();
  if (!account?.featured_url || account.featured_url !== activity.targetId.href) return null;
  const statusId =
    activity instanceof Add
      ? await statusFromUri(rt, ctx, activity.objectId.href)
      : await storedStatusId(ctx, activity.objectId);
  return statusId ? { accountId, statusId } : null;
}

async function onAdd(ctx: Ctx, activity: Add): Promise<void> {
  const change = await featuredChange(ctx, activity);
  if (change) await addRemotePin(ctx.data, change.accountId, change.statusId);
}

async function onRemove(ctx: Ctx, activity: Remove): Promise<void> {
  const change = await featuredChange(ctx, activity);
  if (change) await removeRemotePin(ctx.data, change.accountId, change.statusId);
}

/**
 * A Move, as Mastodon takes one: its actor (who signed it) moving itself (`object`) to `target`,
 * whose actor is read again now: it must list the actor in its `alsoKnownAs`.
 */
async function onMove(ctx: Ctx, activity: Move): Promise<void> {
  if (!activity.actorId || !activity.targetId || activity.objectId?.href !== activity.actorId.href) return;
  const originId = await sender(ctx, activity);
  if (!originId) return;
  const targetUri = activity.targetId.href;
  if (await refused(ctx.data, activity.targetId)) return;
  const targetId = await accountByUri(ctx.data, ctx, targetUri, { refresh: true, followMove: false });
  if (targetId) await receiveMove(ctx.data, originId, targetId);
}

/** A Flag names at most this many objects (an account and its statuses); the rest are not read. */
const MAX_FLAG_OBJECTS = 100;

/**
 * Another server's report, as Mastodon takes one (ActivityPub::Activity::Flag): for each account it
 * names that is ours, or another server's whose named statuses reply to one of ours, a report from
 * the Flag's actor (usually that server's instance actor) with the named statuses of that account,
 * unless the server's domain block rejects its reports.
 */
async function onFlag(ctx: Ctx, activity: Flag): Promise<void> {
  const rt = ctx.data;
  if (!activity.actorId || (await peerPolicy(rt, activity.actorId.host)).rejectReports) return;
  const reporterId = await sender(ctx, activity);
  const uris = [...new Set(activity.objectIds.slice(0, MAX_FLAG_OBJECTS).map((u) => u.href))];
  if (!reporterId || uris.length === 0) return;
  const [accounts, statuses] = await Promise.all([
    rt.db
      .selectFrom("accounts")
      .select(["id", "domain"])
      .where("uri", "in", uris)
      .where("suspended_at", "is", null)
      .execute(),
    rt.db
      .selectFrom("statuses as s")
      .leftJoin("accounts as p", "p.id", "s.in_reply_to_account_id")
      .select(["s.id", "s.account_id", "p.domain as parent_domain", "p.id as parent_id"])
      .where("s.uri", "in", uris)
      .where("s.deleted_at", "is", null)
      .execute(),
  ]);
  // The Flag's id, when it is of the reporting server (Mastodon ignores an id of another origin).
  const uri = activity.id && activity.id.origin === activity.actorId.origin ? activity.id.href : null;
  const comment = activity.content === null || activity.content === undefined ? "" : String(activity.content);
  for (const target of accounts) {
    const theirs = statuses.filter((s) => s.account_id === target.id);
    const repliesToOurs = theirs.some((s) => s.parent_id !== null && s.parent_domain === null);
    if (target.domain !== null && !repliesToOurs) continue;
    await receiveReport(rt, reporterId, { targetId: target.id, statusIds: theirs.map((s) => s.id), comment, uri });
  }
}

/** Activities of servers this one does not deal with (suspended, or not allowed) are dropped. */
function fromPeer<A extends Activity>(listener: (ctx: Ctx, activity: A) => Promise<void>) {
  return async (ctx: Ctx, activity: A) => {
    if (!activity.actorId || (await refused(ctx.data, activity.actorId))) return;
    await recordContact(ctx.data, activity.actorId.host, "received");
    await listener(ctx, activity);
  };
}

export function registerInbox(rt: Runtime, federation: Federation<Runtime>): void {
  federation
    .setInboxListeners("/users/{identifier}/inbox", "/inbox")
    // Fetches made while handling the shared inbox are signed by the instance actor.
    .setSharedKeyDispatcher(() => ({ identifier: INSTANCE_ACTOR }))
    // With a queue, Fedify checks idempotency when it accepts an activity under a key that only its
    // queue-less path writes, so that read never finds anything: it is skipped. The job that runs
    // the activity still checks (and records) it under its own key.
    .withIdempotency(() => null)
    .on(Follow, fromPeer(onFollow))
    .on(Accept, fromPeer(onAccept))
    .on(Reject, fromPeer(onReject))
    .on(Undo, fromPeer(onUndo))
    .on(Create, fromPeer(onCreate))
    .on(Update, fromPeer(onUpdate))
    .on(Delete, fromPeer(onDelete))
    .on(Announce, fromPeer(onAnnounce))
    .on(Like, fromPeer(onLike))
    .on(Block, fromPeer(onBlock))
    .on(Flag, fromPeer(onFlag))
    .on(Add, fromPeer(onAdd))
    .on(Remove, fromPeer(onRemove))
    .on(QuoteRequest, fromPeer(onQuote))
    .on(Move, fromPeer(onMove))
    .onError((_ctx, error) => {
      log.warn("An inbox activity failed on {domain}: {error}", {
        domain: rt.config.localDomain,
        error: String(error),
      });
    });
}
