// The `federation.distribute` job: builds the activity of a local action from the rows (as they are
// when it runs), finds the inboxes that must receive it, one per server where the server has a
// shared inbox, and adds a delivery job for each. Run twice, it adds no delivery twice (the
// deliveries are unique jobs). Every activity carries an object integrity proof (FEP-8b32) made
// with the actor's Ed25519 key, as Fedify's sendActivity adds one: a server can then trust an
// activity forwarded by someone else, or fetched from elsewhere, without our HTTP signature.

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
  Like,
  Move,
  Note,
  PUBLIC_COLLECTION,
  Reject,
  Remove,
  Tombstone,
  Undo,
  Update,
} from "@fedify/fedify/vocab";
import { urls } from "../domain/urls.ts";
import type { JobPayloads } from "../jobs/queue.ts";
import type { Runtime } from "../runtime.ts";
import type { Outgoing } from "../services/federation/outbox.ts";
import { acceptedRelayInboxes } from "../services/federation/relays.ts";
import { INSTANCE_ACTOR, localActor } from "./actor.ts";
import { mastodonAddressing, PUBLIC_URI } from "./addressing.ts";
import { DELIVERY_MAX_ATTEMPTS } from "./delivery.ts";
import { federationOf } from "./federation.ts";
import { actorKeyPairs, INSTANCE_KEY_OWNER, proofKeyId } from "./keys.ts";
import { localAccountByUsername } from "./local_rows.ts";
import { addMediaTerms, type MediaTerms } from "./media_terms.ts";
import { loadNoteParts, noteObject } from "./note.ts";
import { refused } from "./peers.ts";
import { withProof } from "./proof.ts";
import { buildQuoteActivity } from "./quotes.ts";
import { instant } from "./temporal.ts";

type JsonObject = Record<string, unknown>;

interface Audience {
  /** Local account ids whose remote followers receive it. */
  followersOf: string[];
  /** Account ids that receive it themselves (the remote ones among them). */
  accounts: string[];
  /** A local account whose other counterparts receive it too (knownBy). */
  knowing?: string;
  /** The accepted relays receive it too (a public status, or its boost). */
  relays?: boolean;
  /** Inboxes named outright (a relay's). */
  inboxes?: string[];
}

interface Built {
  actorId: string;
  activity: Activity;
  /** The terms of the note's attachments that Fedify's vocabulary lacks, for its `object`. */
  media?: MediaTerms[];
  audience: Audience;
  /** Further activities to the same audience (a vote on several choices). */
  more?: Activity[];
}

/** The instance actor's id (`/actor`, as Mastodon's). */
const instanceActorUri = (rt: Runtime) =>
  federationOf(rt).createContext(new URL(rt.config.origin), rt).getActorUri(INSTANCE_ACTOR);

async function accountUri(rt: Runtime, id: string): Promise<string | null> {
  const row = await rt.db.selectFrom("accounts").select("uri").where("id", "=", id).executeTakeFirst();
  return row?.uri ?? null;
}

async function build(rt: Runtime, o: Outgoing, at: Date): Promise<Built | null> {
  const stamp = at.getTime();
  switch (o.type) {
    case "Create":
    case "Update":
    case "Delete": {
      const parts = await loadNoteParts(rt, o.statusId);
      if (!parts?.row.local) return null;
      const { row } = parts;
      const mentioned = await rt.db
        .selectFrom("status_mentions")
        .select("account_id")
        .where("status_id", "=", row.id)
        .execute();
      const audience: Audience = {
        followersOf: row.visibility === "direct" ? [] : [row.account_id],
        accounts: [
          ...mentioned.map((m) => m.account_id),
          ...(row.in_reply_to_account_id ? [row.in_reply_to_account_id] : []),
        ],
        relays: row.visibility === "public",
      };
      const actor = new URL(parts.author.uri);
      if (o.type === "Delete") {
        if (!row.deleted_at) return null;
        const activity = new Delete({
          id: new URL(`${row.uri}#delete`),
          actor,
          tos: [PUBLIC_COLLECTION],
          object: new Tombstone({ id: new URL(row.uri) }),
        });
        return { actorId: row.account_id, activity, audience };
      }
      if (row.deleted_at) return null;
      const note = await noteObject(rt, parts);
      const addressing = { actor, tos: note.toIds, ccs: note.ccIds, object: note };
      const activity =
        o.type === "Create"
          ? new Create({ id: new URL(`${row.uri}/activity`), published: note.published, ...addressing })
          : new Update({ id: new URL(`${row.uri}#updates/${stamp}`), updated: instant(at), ...addressing });
      return { actorId: row.account_id, activity, audience, media: parts.media };
    }
    case "Announce": {
      const boost = await rt.db.selectFrom("statuses").selectAll().where("id", "=", o.boostId).executeTakeFirst();
      if (!boost?.reblog_of_id || boost.deleted_at) return null;
      const original = await rt.db
        .selectFrom("statuses")
        .select(["uri", "account_id"])
        .where("id", "=", boost.reblog_of_id)
        .executeTakeFirst();
      const actor = await accountUri(rt, boost.account_id);
      const author = original ? await accountUri(rt, original.account_id) : null;
      if (!original || !actor || !author) return null;
      const activity = new Announce({
        id: new URL(`${boost.uri}/activity`),
        actor: new URL(actor),
        published: instant(boost.created_at),
        tos: [PUBLIC_COLLECTION],
        ccs: [new URL(author), new URL(`${actor}/followers`)],
        object: new URL(original.uri),
      });
      return {
        actorId: boost.account_id,
        activity,
        audience: {
          followersOf: [boost.account_id],
          accounts: [original.account_id],
          relays: boost.visibility === "public",
        },
      };
    }
    case "UndoAnnounce": {
      const actor = await accountUri(rt, o.accountId);
      const original = await rt.db
        .selectFrom("statuses")
        .select(["uri", "account_id"])
        .where("id", "=", o.statusId)
        .executeTakeFirst();
      if (!actor || !original) return null;
      const announce = new Announce({
        id: new URL(`${o.boostUri}/activity`),
        actor: new URL(actor),
        object: new URL(original.uri),
      });
      const activity = new Undo({
        id: new URL(`${o.boostUri}#undo/${stamp}`),
        actor: new URL(actor),
        tos: [PUBLIC_COLLECTION],
        object: announce,
      });
      return {
        actorId: o.accountId,
        activity,
        audience: { followersOf: [o.accountId], accounts: [original.account_id] },
      };
    }
    case "Like":
    case "UndoLike": {
      const actor = await accountUri(rt, o.accountId);
      const status = await rt.db
        .selectFrom("statuses")
        .select(["uri", "account_id"])
        .where("id", "=", o.statusId)
        .executeTakeFirst();
      if (!actor || !status) return null;
      const author = await accountUri(rt, status.account_id);
      const like = new Like({
        id: new URL(`${actor}#likes/${o.statusId}/${stamp}`),
        actor: new URL(actor),
        object: new URL(status.uri),
        tos: author ? [new URL(author)] : [],
      });
      const activity =
        o.type === "Like"
          ? like
          : new Undo({
              id: new URL(`${actor}#likes/${o.statusId}/undo/${stamp}`),
              actor: new URL(actor),
              object: like,
            });
      return { actorId: o.accountId, activity, audience: { followersOf: [], accounts: [status.account_id] } };
    }
    case "Follow":
    case "UndoFollow": {
      const [actor, target] = await Promise.all([accountUri(rt, o.accountId), accountUri(rt, o.targetId)]);
      if (!actor || !target) return null;
      const follow = new Follow({
        id: new URL(o.followUri ?? `${actor}#follows/${o.targetId}/${stamp}`),
        actor: new URL(actor),
        object: new URL(target),
      });
      const activity =
        o.type === "Follow"
          ? follow
          : new Undo({
              id: new URL(`${actor}#follows/${o.targetId}/undo/${stamp}`),
              actor: new URL(actor),
              object: follow,
            });
      return { actorId: o.accountId, activity, audience: { followersOf: [], accounts: [o.targetId] } };
    }
    case "Accept":
    case "Reject": {
      const [actor, follower] = await Promise.all([accountUri(rt, o.accountId), accountUri(rt, o.followerId)]);
      if (!actor || !follower) return null;
      const follow = new Follow({
        id: o.followUri ? new URL(o.followUri) : null,
        actor: new URL(follower),
        object: new URL(actor),
      });
      const values = {
        id: new URL(`${actor}#${o.type.toLowerCase()}s/follows/${o.followerId}/${stamp}`),
        actor: new URL(actor),
        tos: [new URL(follower)],
        object: follow,
      };
      const activity = o.type === "Accept" ? new Accept(values) : new Reject(values);
      return { actorId: o.accountId, activity, audience: { followersOf: [], accounts: [o.followerId] } };
    }
    case "Block":
    case "UndoBlock": {
      const [actor, target] = await Promise.all([accountUri(rt, o.accountId), accountUri(rt, o.targetId)]);
      if (!actor || !target) return null;
      const block = new Block({
        id: new URL(`${actor}#blocks/${o.targetId}/${stamp}`),
        actor: new URL(actor),
        object: new URL(target),
      });
      const activity =
        o.type === "Block"
          ? block
          : new Undo({
              id: new URL(`${actor}#blocks/${o.targetId}/undo/${stamp}`),
              actor: new URL(actor),
              object: block,
            });
      return { actorId: o.accountId, activity, audience: { followersOf: [], accounts: [o.targetId] } };
    }
    case "UpdateActor": {
      const account = await rt.db
        .selectFrom("accounts")
        .select("username")
        .where("id", "=", o.accountId)
        .executeTakeFirst();
      const row = account ? await localAccountByUsername(rt, account.username) : null;
      if (!row) return null;
      const ctx = federationOf(rt).createContext(new URL(rt.config.origin), rt);
      const person = await localActor(rt, ctx, row);
      const activity = new Update({
        id: new URL(`${row.uri}#updates/${stamp}`),
        actor: new URL(row.uri),
        tos: [PUBLIC_COLLECTION],
        object: person,
      });
      return { actorId: o.accountId, activity, audience: { followersOf: [o.accountId], accounts: [] } };
    }
    case "Move": {
      const [actor, target] = await Promise.all([accountUri(rt, o.accountId), accountUri(rt, o.targetId)]);
      if (!actor || !target) return null;
      const activity = new Move({
        id: new URL(`${actor}#moves/${o.migrationId}`),
        actor: new URL(actor),
        object: new URL(actor),
        target: new URL(target),
      });
      return { actorId: o.accountId, activity, audience: { followersOf: [o.accountId], accounts: o.blockers } };
    }
    case "DeleteActor": {
      const actor = await accountUri(rt, o.accountId);
      if (!actor) return null;
      const activity = new Delete({
        id: new URL(`${actor}#delete`),
        actor: new URL(actor),
        tos: [PUBLIC_COLLECTION],
        object: new URL(actor),
      });
      // Every server that knows the account removes it, not only its followers' (as Mastodon's).
      return {
        actorId: o.accountId,
        activity,
        audience: { followersOf: [o.accountId], accounts: [], knowing: o.accountId },
      };
    }
    case "Add":
    case "Remove": {
      const [account, status, pin] = await Promise.all([
        rt.db.selectFrom("accounts").select(["uri", "username"]).where("id", "=", o.accountId).executeTakeFirst(),
        rt.db.selectFrom("statuses").select("uri").where("id", "=", o.statusId).executeTakeFirst(),
        rt.db
          .selectFrom("status_pins")
          .select("id")
          .where("account_id", "=", o.accountId)
          .where("status_id", "=", o.statusId)
          .executeTakeFirst(),
      ]);
      // Pinned or unpinned again since: the later change's activity says what holds.
      if (!account || !status || (o.type === "Add") !== (pin !== undefined)) return null;
      const values = {
        id: new URL(`${account.uri}#${o.type === "Add" ? "pins" : "unpins"}/${o.statusId}/${stamp}`),
        actor: new URL(account.uri),
        object: new URL(status.uri),
        target: new URL(urls(rt.config).actor(account.username).featured),
      };
      const activity = o.type === "Add" ? new Add(values) : new Remove(values);
      return { actorId: o.accountId, activity, audience: { followersOf: [o.accountId], accounts: [] } };
    }
    case "RelayFollow":
    case "RelayUndo": {
      const actor = instanceActorUri(rt);
      if (o.type === "RelayFollow") {
        // Disabled, removed or followed anew since: that later change's activity is the one to send.
        const relay = await rt.db
          .selectFrom("relays")
          .select("id")
          .where("inbox_url", "=", o.inbox)
          .where("follow_activity_id", "=", o.followUri)
          .executeTakeFirst();
        if (!relay) return null;
      }
      const follow = new Follow({ id: new URL(o.followUri), actor, object: PUBLIC_COLLECTION });
      const activity =
        o.type === "RelayFollow"
          ? follow
          : new Undo({ id: new URL(`${o.followUri}#undo/${stamp}`), actor, object: follow });
      return { actorId: INSTANCE_KEY_OWNER, activity, audience: { followersOf: [], accounts: [], inboxes: [o.inbox] } };
    }
    case "Flag": {
      const report = await rt.db.selectFrom("reports").selectAll().where("id", "=", o.reportId).executeTakeFirst();
      const target = report ? await accountUri(rt, report.target_account_id) : null;
      if (!report?.uri || !target) return null;
      const statuses = report.status_ids.length
        ? await rt.db.selectFrom("statuses").select("uri").where("id", "in", report.status_ids).orderBy("id").execute()
        : [];
      // As Mastodon's: from the instance actor, so that the reporter stays unknown there; no addressing.
      const activity = new Flag({
        id: new URL(report.uri),
        actor: instanceActorUri(rt),
        content: report.comment,
        objects: [new URL(target), ...statuses.map((s) => new URL(s.uri))],
      });
      return { actorId: INSTANCE_KEY_OWNER, activity, audience: { followersOf: [], accounts: o.recipients } };
    }
    case "Vote": {
      const poll = await rt.db.selectFrom("polls").selectAll().where("id", "=", o.pollId).executeTakeFirst();
      const actor = await accountUri(rt, o.accountId);
      if (!poll || !actor) return null;
      const [status, author] = await Promise.all([
        rt.db.selectFrom("statuses").select("uri").where("id", "=", poll.status_id).executeTakeFirst(),
        accountUri(rt, poll.account_id),
      ]);
      if (!status || !author) return null;
      // One Create per choice, as Mastodon sends votes.
      const activities = o.choices.map(
        (choice) =>
          new Create({
            id: new URL(`${actor}#votes/${o.pollId}/${choice}/activity`),
            actor: new URL(actor),
            tos: [new URL(author)],
            object: new Note({
              id: new URL(`${actor}#votes/${o.pollId}/${choice}`),
              name: poll.options[choice],
              attribution: new URL(actor),
              replyTarget: new URL(status.uri),
              tos: [new URL(author)],
            }),
          }),
      );
      if (activities.length === 0) return null;
      return {
        actorId: o.accountId,
        activity: activities[0],
        audience: { followersOf: [], accounts: [poll.account_id] },
        more: activities.slice(1),
      };
    }
    case "QuoteRequest":
    case "RevokeQuote":
    case "AcceptQuote":
    case "RejectQuote":
      return buildQuoteActivity(rt, o);
  }
}

/**
 * The inboxes of the remote accounts that know `accountId` besides its followers: those it follows
 * or asked to follow, and those it replied to, boosted, favourited or mentioned.
 */
function knownBy(rt: Runtime, accountId: string) {
  return rt.db
    .selectFrom("accounts as a")
    .select(["a.inbox_url", "a.shared_inbox_url"])
    .distinct()
    .where("a.domain", "is not", null)
    .where((eb) =>
      eb.or([
        eb("a.id", "in", eb.selectFrom("follows").select("target_account_id").where("account_id", "=", accountId)),
        eb(
          "a.id",
          "in",
          eb.selectFrom("follow_requests").select("target_account_id").where("account_id", "=", accountId),
        ),
        eb(
          "a.id",
          "in",
          eb
            .selectFrom("statuses")
            .select("in_reply_to_account_id")
            .where("account_id", "=", accountId)
            .where("in_reply_to_account_id", "is not", null),
        ),
        eb(
          "a.id",
          "in",
          eb
            .selectFrom("statuses as boost")
            .innerJoin("statuses as original", "original.id", "boost.reblog_of_id")
            .select("original.account_id")
            .where("boost.account_id", "=", accountId),
        ),
        eb(
          "a.id",
          "in",
          eb
            .selectFrom("favourites as f")
            .innerJoin("statuses as s", "s.id", "f.status_id")
            .select("s.account_id")
            .where("f.account_id", "=", accountId),
        ),
        eb(
          "a.id",
          "in",
          eb
            .selectFrom("status_mentions as m")
            .innerJoin("statuses as s", "s.id", "m.status_id")
            .select("m.account_id")
            .where("s.account_id", "=", accountId),
        ),
      ]),
    )
    .execute();
}

/** The inboxes of the remote followers of `followersOf` and of the remote `accounts`, one per server when it can be. */
async function inboxes(rt: Runtime, audience: Audience): Promise<string[]> {
  const found = new Set<string>();
  if (audience.followersOf.length > 0) {
    const rows = await rt.db
      .selectFrom("follows as f")
      .innerJoin("accounts as a", "a.id", "f.account_id")
      .select(["a.inbox_url", "a.shared_inbox_url"])
      .where("f.target_account_id", "in", audience.followersOf)
      .where("a.domain", "is not", null)
      .where("a.suspended_at", "is", null)
      .execute();
    for (const r of rows) {
      const inbox = r.shared_inbox_url ?? r.inbox_url;
      if (inbox) found.add(inbox);
    }
  }
  if (audience.accounts.length > 0) {
    const rows = await rt.db
      .selectFrom("accounts")
      .select(["inbox_url", "shared_inbox_url"])
      .where("id", "in", audience.accounts)
      .where("domain", "is not", null)
      .execute();
    for (const r of rows) {
      const inbox = r.shared_inbox_url ?? r.inbox_url;
      if (inbox) found.add(inbox);
    }
  }
  if (audience.knowing) {
    for (const r of await knownBy(rt, audience.knowing)) {
      const inbox = r.shared_inbox_url ?? r.inbox_url;
      if (inbox) found.add(inbox);
    }
  }
  for (const inbox of audience.inboxes ?? []) found.add(inbox);
  if (audience.relays) for (const inbox of await acceptedRelayInboxes(rt)) found.add(inbox);
  const open: string[] = [];
  for (const inbox of found) if (!(await refused(rt, inbox))) open.push(inbox);
  return open;
}

/**
 * A relay's Follow (or the one its Undo embeds) names the public collection by its full URI, as
 * Mastodon writes it: relays compare the object as a string, and Fedify compacts it to `as:Public`.
 */
function publicFollow(json: JsonObject): JsonObject {
  const follow = json.type === "Undo" ? json.object : json;
  if (typeof follow !== "object" || follow === null || (follow as JsonObject).type !== "Follow") return json;
  if ((follow as JsonObject).object !== "as:Public") return json;
  const fixed = { ...(follow as JsonObject), object: PUBLIC_URI };
  return json === follow ? fixed : { ...json, object: fixed };
}

export async function distribute(rt: Runtime, { outgoing, at }: JobPayloads["federation.distribute"]): Promise<void> {
  const built = await build(rt, outgoing, new Date(at));
  if (!built) return;
  const targets = await inboxes(rt, built.audience);
  if (targets.length === 0) return;
  const ctx = federationOf(rt).createContext(new URL(rt.config.origin), rt);
  const actor =
    built.actorId === INSTANCE_KEY_OWNER
      ? { uri: instanceActorUri(rt).href }
      : await rt.db.selectFrom("accounts").select("uri").where("id", "=", built.actorId).executeTakeFirstOrThrow();
  // From the table rather than the dispatcher, which has none for a suspended actor: its Delete is
  // proven with the key the receivers have seen (and cached), its document being gone.
  const { ed25519 } = await actorKeyPairs(rt.db, built.actorId);
  const activities = [built.activity, ...(built.more ?? [])];
  for (const activity of activities) {
    let json = publicFollow(
      mastodonAddressing(
        (await activity.toJsonLd({ format: "compact", contextLoader: ctx.contextLoader })) as JsonObject,
      ),
    );
    if (built.media && typeof json.object === "object" && json.object) {
      addMediaTerms(json, json.object as JsonObject, built.media);
    }
    // Dated by the action, not by this run: Ed25519 signs the same bytes the same way, so a second
    // run makes the same body and its deliveries are the ones already waiting.
    json = await withProof(json, ed25519.privateKey, proofKeyId(actor.uri), new Date(at));
    const body = JSON.stringify(json);
    for (const inbox of targets) {
      await rt.queue.enqueue(
        "federation.deliver",
        { inbox, owner: built.actorId, keyId: `${actor.uri}#main-key`, body },
        { unique: true, maxAttempts: DELIVERY_MAX_ATTEMPTS },
      );
    }
  }
}
