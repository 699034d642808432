// Quote posts over ActivityPub, as FEP-044f and Mastodon 4.5 do them. A local quote of a remote
// status sends a QuoteRequest (with the quoting Note as its `instrument`) and waits for an Accept
// whose `result` is the quoted author's QuoteAuthorization stamp; a remote QuoteRequest for a local
// status is answered at once by the status's policy, with an Accept and a stamp served at
// /users/{username}/quote_authorizations/{id}, or a Reject; a revocation is a Delete of the stamp.
// Statuses of servers that quote the older way (`quoteUrl`, `_misskey_quote`, `quoteUri` without
// `quote`) are stored with a `legacy` quote, shown only once accepted (a self-quote), as Mastodon.
import type { Context, InboxContext } from "@fedify/fedify";
import {
  Accept,
  type Activity,
  Delete,
  InteractionPolicy,
  InteractionRule,
  PUBLIC_COLLECTION,
  QuoteAuthorization,
  QuoteRequest,
  Reject,
} from "@fedify/fedify/vocab";
import type { Db } from "../db/index.ts";
import { isId, newId } from "../domain/ids.ts";
import type { Runtime } from "../runtime.ts";
import { federate, type Outgoing } from "../services/federation/outbox.ts";
import { notify } from "../services/notifications/create.ts";
import { changeQuoteState, quoterOf, rejectedState, removeQuote } from "../services/statuses/quotes.ts";
import { QUOTE_FLAGS, quoteVerdict } from "../services/visibility/quote.ts";
import { publishEvent } from "../streaming/events.ts";
import { loadNoteParts, noteObject } from "./note.ts";
import { signedLoader } from "./remote_accounts.ts";
import { isStatusObject, type StatusObject, statusByUri, statusFromUri, storeStatus } from "./remote_statuses.ts";

type Built = { actorId: string; activity: Activity; audience: { followersOf: string[]; accounts: string[] } };

const quoteRow = (db: Db, id: string) => db.selectFrom("quotes").selectAll().where("id", "=", id).executeTakeFirst();

async function uriOf(db: Db, table: "accounts" | "statuses", id: string | null): Promise<string | null> {
  if (!id) return null;
  const row = await db.selectFrom(table).select("uri").where("id", "=", id).executeTakeFirst();
  return row?.uri ?? null;
}

/** Where the stamp of a local author's accepted quote is served. */
export const stampUri = (authorUri: string, quoteId: string) => `${authorUri}/quote_authorizations/${quoteId}`;

/** The activities of Outgoing's quote kinds, for the distribute job. */
export async function buildQuoteActivity(
  rt: Runtime,
  o: Extract<Outgoing, { type: "QuoteRequest" | "RevokeQuote" | "AcceptQuote" | "RejectQuote" }>,
): Promise<Built | null> {
  if (o.type === "AcceptQuote" || o.type === "RejectQuote") {
    const [actor, requester, quoted] = await Promise.all([
      uriOf(rt.db, "accounts", o.accountId),
      uriOf(rt.db, "accounts", o.requesterId),
      uriOf(rt.db, "statuses", o.quotedStatusId),
    ]);
    if (!actor || !requester || !quoted) return null;
    const request = new QuoteRequest({
      id: new URL(o.requestUri),
      actor: new URL(requester),
      object: new URL(quoted),
      instrument: new URL(o.instrumentUri),
    });
    const values = {
      actor: new URL(actor),
      tos: [new URL(requester)],
      object: request,
    };
    const activity =
      o.type === "AcceptQuote" && o.quoteId
        ? new Accept({
            ...values,
            id: new URL(`${actor}#accepts/quote_requests/${o.quoteId}`),
            result: new URL(stampUri(actor, o.quoteId)),
          })
        : new Reject({ ...values, id: new URL(`${actor}#rejects/quote_requests/${encodeURIComponent(o.requestUri)}`) });
    return { actorId: o.accountId, activity, audience: { followersOf: [], accounts: [o.requesterId] } };
  }
  const quote = o.quoteId ? await quoteRow(rt.db, o.quoteId) : undefined;
  if (!quote) return null;
  if (o.type === "QuoteRequest") {
    if (quote.state !== "pending" || !quote.activity_uri || !quote.quoted_status_id) return null;
    const [actor, quoted, parts] = await Promise.all([
      uriOf(rt.db, "accounts", quote.account_id),
      uriOf(rt.db, "statuses", quote.quoted_status_id),
      loadNoteParts(rt, quote.status_id),
    ]);
    if (!actor || !quoted || !parts || parts.row.deleted_at) return null;
    const activity = new QuoteRequest({
      id: new URL(quote.activity_uri),
      actor: new URL(actor),
      object: new URL(quoted),
      instrument: await noteObject(rt, parts),
    });
    return {
      actorId: quote.account_id,
      activity,
      audience: { followersOf: [], accounts: quote.quoted_account_id ? [quote.quoted_account_id] : [] },
    };
  }
  // RevokeQuote: the stamp of a local author is deleted, for the quoting server and its followers here.
  const actor = await uriOf(rt.db, "accounts", quote.quoted_account_id);
  if (!actor || !quote.quoted_account_id) return null;
  const stamp = stampUri(actor, quote.id);
  const activity = new Delete({
    id: new URL(`${stamp}#delete`),
    actor: new URL(actor),
    tos: [PUBLIC_COLLECTION],
    object: new URL(stamp),
  });
  return { actorId: quote.quoted_account_id, activity, audience: { followersOf: [], accounts: [quote.account_id] } };
}

/** The stamp of an accepted quote of a local status, for its URL (Mastodon's QuoteAuthorizationSerializer). */
export async function servedStamp(rt: Runtime, username: string, id: string): Promise<QuoteAuthorization | null> {
  if (!isId(id)) return null;
  const quote = await rt.db
    .selectFrom("quotes as q")
    .innerJoin("accounts as a", "a.id", "q.quoted_account_id")
    .innerJoin("statuses as s", "s.id", "q.status_id")
    .innerJoin("statuses as t", "t.id", "q.quoted_status_id")
    .select(["a.uri as author", "s.uri as quoting", "t.uri as quoted"])
    .where("q.id", "=", id)
    .where("q.state", "=", "accepted")
    .where("a.username", "=", username)
    .where("a.domain", "is", null)
    .executeTakeFirst();
  if (!quote) return null;
  return new QuoteAuthorization({
    id: new URL(stampUri(quote.author, id)),
    attribution: new URL(quote.author),
    interactingObject: new URL(quote.quoting),
    interactionTarget: new URL(quote.quoted),
  });
}

/** The `interactionPolicy` of a local status: who may quote it without asking. */
export function interactionPolicyOf(bits: number, author: { uri: string; followersUrl: string }) {
  const automatic = bits >> 16;
  const approvals = [
    new URL(author.uri),
    ...(automatic & QUOTE_FLAGS.public ? [PUBLIC_COLLECTION] : []),
    ...(automatic & QUOTE_FLAGS.followers ? [new URL(author.followersUrl)] : []),
  ];
  return new InteractionPolicy({ canQuote: new InteractionRule({ automaticApprovals: approvals }) });
}

/** The quote terms of a local status's Note: the quoted object, and the stamp once accepted. */
export async function noteQuoteTerms(rt: Runtime, statusId: string) {
  const quote = await rt.db
    .selectFrom("quotes as q")
    .innerJoin("statuses as t", "t.id", "q.quoted_status_id")
    .leftJoin("accounts as a", "a.id", "q.quoted_account_id")
    .select(["q.id", "q.state", "q.approval_uri", "t.uri", "a.uri as author", "a.domain"])
    .where("q.status_id", "=", statusId)
    .executeTakeFirst();
  if (!quote) return {};
  const stamp =
    quote.state !== "accepted"
      ? null
      : quote.domain === null && quote.author
        ? stampUri(quote.author, quote.id)
        : quote.approval_uri;
  return {
    quote: new URL(quote.uri),
    quoteUrl: new URL(quote.uri),
    quoteAuthorization: stamp ? new URL(stamp) : null,
  };
}

/** The policy bits a remote status's `interactionPolicy.canQuote` says (visibility/quote.ts). */
export function remotePolicyBits(object: StatusObject, author: { uri: string; followers_url: string | null }): number {
  const rule = object.interactionPolicy?.canQuote;
  if (!rule) return 0;
  const flags = (urls: readonly URL[]) => {
    let bits = 0;
    for (const url of urls) {
      if (url.href === PUBLIC_COLLECTION.href || url.href === "as:Public") bits |= QUOTE_FLAGS.public;
      else if (author.followers_url && url.href === author.followers_url) bits |= QUOTE_FLAGS.followers;
      else if (url.href === `${author.uri}/following`) bits |= QUOTE_FLAGS.following;
      else if (url.href !== author.uri) bits |= QUOTE_FLAGS.unsupported_policy;
    }
    return bits;
  };
  return (flags(rule.automaticApprovals) << 16) | flags(rule.manualApprovals);
}

/**
 * After a remote status is stored: its quote, if it has one. A self-quote is accepted; a quote of a
 * local status waits for its QuoteRequest (onQuoteRequest accepts it); another server's stamp is
 * fetched and checked (it must be its author's, name this status and the quoted one). Legacy quotes
 * stay pending.
 */
export async function storeRemoteQuote(
  rt: Runtime,
  ctx: Context<Runtime>,
  object: StatusObject,
  statusId: string,
  accountId: string,
  depth: number,
): Promise<void> {
  const quotedUri = object.quoteId ?? object.quoteUrl;
  if (!quotedUri || !object.id) return;
  const exists = await rt.db.selectFrom("quotes").select("id").where("status_id", "=", statusId).executeTakeFirst();
  if (exists) return;
  const quotedId = depth < 2 ? await statusFromUri(rt, ctx, quotedUri.href, depth + 1).catch(() => null) : null;
  const quoted = quotedId
    ? await rt.db.selectFrom("statuses").select(["id", "account_id"]).where("id", "=", quotedId).executeTakeFirst()
    : undefined;
  const approval = object.quoteAuthorizationId?.href ?? null;
  let state: "pending" | "accepted" = "pending";
  if (quoted && quoted.account_id === accountId) state = "accepted";
  else if (quoted && approval)
    state = (await stampHolds(rt, ctx, approval, object.id.href, quotedUri.href)) ? "accepted" : "pending";
  const now = new Date();
  await rt.db
    .insertInto("quotes")
    .values({
      id: newId(),
      status_id: statusId,
      account_id: accountId,
      quoted_status_id: quoted?.id ?? null,
      quoted_account_id: quoted?.account_id ?? null,
      state,
      legacy: !object.quoteId,
      activity_uri: null,
      approval_uri: approval,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.column("status_id").doNothing())
    .execute();
  await publishEvent(rt, "statuses.changed", { ids: [statusId] });
}

/**
 * An Update of a remote status that quotes another status now, or no longer (Mastodon's
 * ProcessStatusUpdateService#update_quote!): a quote of another status, or under another stamp,
 * replaces the old one, which is dropped (and with it any stamp of ours for it); a quote gone from
 * the Note is taken off. Returns whether the quote changed, which makes the Update an edit.
 */
export async function updateRemoteQuote(
  rt: Runtime,
  ctx: Context<Runtime>,
  object: StatusObject,
  statusId: string,
  accountId: string,
): Promise<boolean> {
  const quotedUri = (object.quoteId ?? object.quoteUrl)?.href ?? null;
  const current = await rt.db
    .selectFrom("quotes as q")
    .leftJoin("statuses as t", "t.id", "q.quoted_status_id")
    .select(["t.uri", "q.approval_uri", "q.legacy"])
    .where("q.status_id", "=", statusId)
    .executeTakeFirst();
  if (!current && !quotedUri) return false;
  if (
    current &&
    current.uri === quotedUri &&
    current.approval_uri === (object.quoteAuthorizationId?.href ?? null) &&
    Boolean(current.legacy) === !object.quoteId
  )
    return false;
  await removeQuote(rt.db, statusId);
  if (quotedUri) await storeRemoteQuote(rt, ctx, object, statusId, accountId, 0);
  else await publishEvent(rt, "statuses.changed", { ids: [statusId] });
  return true;
}

/** Whether the stamp at `approval` authorizes `quotingUri` to quote `quotedUri` (Mastodon's VerifyQuoteService). */
async function stampHolds(rt: Runtime, ctx: Context<Runtime>, approval: string, quotingUri: string, quotedUri: string) {
  // One of ours names the quote row our answer to the QuoteRequest accepted, for this very status:
  // a status stored without one cannot borrow another's.
  if (ctx.parseUri(new URL(approval))) return false;
  const stamp = await ctx.lookupObject(approval, { documentLoader: await signedLoader(ctx) }).catch(() => null);
  if (!(stamp instanceof QuoteAuthorization) || !stamp.attributionId) return false;
  if (stamp.attributionId.host !== new URL(approval).host) return false;
  if (stamp.interactingObjectId?.href !== quotingUri || stamp.interactionTargetId?.href !== quotedUri) return false;
  const quoted = await rt.db
    .selectFrom("statuses as s")
    .innerJoin("accounts as a", "a.id", "s.account_id")
    .select("a.uri")
    .where("s.uri", "=", quotedUri)
    .executeTakeFirst();
  return quoted?.uri === stamp.attributionId.href;
}

/**
 * A remote QuoteRequest for a local status (Mastodon's ActivityPub::Activity::QuoteRequest): the
 * quoting status (stored, embedded as `instrument`, or fetched) is accepted when the policy lets its
 * author quote, and the author notified; else a Reject goes back.
 */
export async function onQuoteRequest(ctx: InboxContext<Runtime>, activity: QuoteRequest, actorId: string) {
  const rt = ctx.data;
  if (!activity.id || !activity.objectId || !activity.actorId) return;
  if (activity.id.host !== activity.actorId.host) return;
  const quoted = await statusByUri(rt.db, activity.objectId.href);
  if (!quoted || quoted.deleted_at) return;
  const row = await rt.db
    .selectFrom("statuses as s")
    .innerJoin("accounts as a", "a.id", "s.account_id")
    .select(["s.id", "s.account_id", "s.visibility", "s.reblog_of_id", "s.quote_approval_policy", "a.domain"])
    .where("s.id", "=", quoted.id)
    .executeTakeFirstOrThrow();
  if (row.domain !== null || row.reblog_of_id || row.visibility === "private" || row.visibility === "direct") return;
  const instrument = await activity.getInstrument({ crossOrigin: "trust" }).catch(() => null);
  const instrumentUri = activity.instrumentId?.href ?? null;
  if (!instrumentUri) return;
  const blocked = await rt.db
    .selectFrom("blocks")
    .select("id")
    .where((eb) =>
      eb.or([
        eb.and([eb("account_id", "=", row.account_id), eb("target_account_id", "=", actorId)]),
        eb.and([eb("account_id", "=", actorId), eb("target_account_id", "=", row.account_id)]),
      ]),
    )
    .executeTakeFirst();
  const verdict = quoteVerdict(row, await quoterOf(rt.db, actorId, row.account_id));
  const answer = {
    accountId: row.account_id,
    requesterId: actorId,
    requestUri: activity.id.href,
    instrumentUri,
    quotedStatusId: row.id,
  };
  const reject = () =>
    federate(rt, rt.db, row.account_id, { type: "RejectQuote", ...answer, quoteId: null }, [actorId]);
  if (blocked || verdict !== "automatic") return reject();
  // The quoting status: stored, the embedded one (when it is the actor's own), or fetched.
  let statusId = (await statusByUri(rt.db, instrumentUri))?.id ?? null;
  if (!statusId && isStatusObject(instrument) && instrument.id?.host === activity.actorId.host)
    statusId = await storeStatus(rt, ctx, instrument, 1);
  statusId ??= await statusFromUri(rt, ctx, instrumentUri, 1);
  if (!statusId) return;
  const quote = await rt.db
    .selectFrom("quotes")
    .selectAll()
    .where("status_id", "=", statusId)
    .where("account_id", "=", actorId)
    .executeTakeFirst();
  if (!quote || quote.quoted_status_id !== row.id) return;
  if (quote.state === "rejected" || quote.state === "revoked") return reject();
  await changeQuoteState(rt, quote.id, "accepted", async (trx) => {
    await trx.updateTable("quotes").set({ activity_uri: activity.id!.href }).where("id", "=", quote.id).execute();
    await trx
      .insertInto("status_mentions")
      .values({ id: newId(), status_id: statusId!, account_id: row.account_id, silent: true })
      .onConflict((oc) => oc.columns(["status_id", "account_id"]).doNothing())
      .execute();
    await notify(rt, trx, { recipientId: row.account_id, fromAccountId: actorId, type: "quote", statusId: statusId! });
  });
  // Answered again for a redelivered request: the other server deduplicates by the Accept's id.
  await federate(rt, rt.db, row.account_id, { type: "AcceptQuote", ...answer, quoteId: quote.id }, [actorId]);
}

/** The local quote a remote Accept or Reject answers (by its QuoteRequest's id), from the quoted author. */
async function answeredQuote(rt: Runtime, activity: Accept | Reject, senderId: string) {
  const requestUri = activity.objectId?.href;
  if (!requestUri) return null;
  const quote = await rt.db.selectFrom("quotes").selectAll().where("activity_uri", "=", requestUri).executeTakeFirst();
  return quote && quote.quoted_account_id === senderId ? quote : null;
}

/** An Accept of our QuoteRequest: accepted, with the stamp (`result`) the Note names from now on. Else false. */
export async function onQuoteAccept(rt: Runtime, activity: Accept, senderId: string): Promise<boolean> {
  const quote = await answeredQuote(rt, activity, senderId);
  if (!quote) return false;
  const stamp = activity.resultId;
  if (!stamp || !activity.actorId || stamp.host !== activity.actorId.host) return true;
  await changeQuoteState(
    rt,
    quote.id,
    "accepted",
    (trx) => federate(rt, trx, quote.account_id, { type: "Update", statusId: quote.status_id }),
    {
      approval_uri: stamp.href,
    },
  );
  return true;
}

/** A Reject of our QuoteRequest. Else false. */
export async function onQuoteReject(rt: Runtime, activity: Reject, senderId: string): Promise<boolean> {
  const quote = await answeredQuote(rt, activity, senderId);
  if (!quote) return false;
  await changeQuoteState(rt, quote.id, rejectedState(quote.state));
  return true;
}

/** A Delete of a stamp by its author: the quote it authorized is revoked. Else false. */
export async function onStampDelete(rt: Runtime, stampUri: string, senderId: string): Promise<boolean> {
  const quote = await rt.db.selectFrom("quotes").selectAll().where("approval_uri", "=", stampUri).executeTakeFirst();
  if (!quote || quote.quoted_account_id !== senderId) return false;
  await changeQuoteState(rt, quote.id, rejectedState(quote.state));
  return true;
}
