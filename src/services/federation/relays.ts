// Relays, as Mastodon has them: servers that pass public posts on between the servers that follow
// them. Following one is a Follow of the public collection by the instance actor, sent to the
// relay's inbox; the relay's Accept or Reject, naming that Follow's id, sets the relay's state.
// Accepted relays receive this server's public posts (src/federation/distribute.ts), and their
// Announces bring other servers' public posts into the federated timeline (src/federation/inbox.ts).
// Managed by `rookery relays` and the web admin; Mastodon has no client API for them, nor does this.
import { randomUUID } from "node:crypto";
import type { Selectable } from "kysely";
import type { RelayState, RelaysTable } from "../../db/schema.ts";
import { fieldError, notFound, validationFailed } from "../../domain/errors.ts";
import { isId, newId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import { federateAsInstance } from "./outbox.ts";

export type Relay = Selectable<RelaysTable>;

const MAX_URL = 2048;

/** The inbox URL as typed, checked: an http(s) URL without credentials or fragment, of a sane length. */
function inboxUrlOf(input: string): string {
  const text = input.trim();
  let url: URL | null = null;
  try {
    url = text.length <= MAX_URL && !text.includes("\0") ? new URL(text) : null;
  } catch {
    url = null;
  }
  if (!url || !["http:", "https:"].includes(url.protocol) || url.username || url.password || url.hash) {
    throw validationFailed({ inbox_url: [fieldError.invalid()] }, { inbox_url: "Inbox URL" });
  }
  return url.href;
}

export async function listRelays(rt: Runtime): Promise<Relay[]> {
  return rt.db.selectFrom("relays").selectAll().orderBy("id").execute();
}

async function relayById(rt: Runtime, id: string): Promise<Relay> {
  const row = isId(id) ? await rt.db.selectFrom("relays").selectAll().where("id", "=", id).executeTakeFirst() : null;
  if (!row) throw notFound();
  return row;
}

/** The relay added with this inbox URL (as typed), or a 404. */
export async function relayByInbox(rt: Runtime, input: string): Promise<Relay> {
  const row = await rt.db
    .selectFrom("relays")
    .selectAll()
    .where("inbox_url", "=", inboxUrlOf(input))
    .executeTakeFirst();
  if (!row) throw notFound();
  return row;
}

/** Adds a relay and follows it at once, as Mastodon's admin does. */
export async function addRelay(rt: Runtime, input: string): Promise<Relay> {
  const inboxUrl = inboxUrlOf(input);
  const now = new Date();
  const id = newId();
  const inserted = await rt.db
    .insertInto("relays")
    .values({ id, inbox_url: inboxUrl, created_at: now, updated_at: now })
    .onConflict((oc) => oc.column("inbox_url").doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) {
    throw validationFailed({ inbox_url: [fieldError.taken] }, { inbox_url: "Inbox URL" });
  }
  return enableRelay(rt, id);
}

/** Follows the relay (again): a new Follow, and the relay is pending until it answers. */
export async function enableRelay(rt: Runtime, id: string): Promise<Relay> {
  const relay = await relayById(rt, id);
  // An id of this server that is no page, as Mastodon makes for a relay's Follow.
  const followUri = `${rt.config.origin}/${randomUUID()}`;
  return rt.db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable("relays")
      .set({ state: "pending", follow_activity_id: followUri, updated_at: new Date() })
      .where("id", "=", relay.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await federateAsInstance(rt, trx, { type: "RelayFollow", inbox: relay.inbox_url, followUri });
    return row;
  });
}

/** Stops following the relay (an Undo of the Follow sent, if any); the relay stays listed, idle. */
export async function disableRelay(rt: Runtime, id: string): Promise<Relay> {
  const relay = await relayById(rt, id);
  return rt.db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable("relays")
      .set({ state: "idle", follow_activity_id: null, updated_at: new Date() })
      .where("id", "=", relay.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    if (relay.follow_activity_id) {
      await federateAsInstance(rt, trx, {
        type: "RelayUndo",
        inbox: relay.inbox_url,
        followUri: relay.follow_activity_id,
      });
    }
    return row;
  });
}

/** Removes the relay, taking back its Follow first when one was sent. */
export async function removeRelay(rt: Runtime, id: string): Promise<void> {
  const relay = await relayById(rt, id);
  await rt.db.transaction().execute(async (trx) => {
    await trx.deleteFrom("relays").where("id", "=", relay.id).execute();
    if (relay.follow_activity_id) {
      await federateAsInstance(rt, trx, {
        type: "RelayUndo",
        inbox: relay.inbox_url,
        followUri: relay.follow_activity_id,
      });
    }
  });
}

/**
 * The relay's answer to the Follow of id `followUri`: true when it was a relay's Follow (whose
 * state is now `state`), false when no relay was sent that Follow.
 */
export async function relayAnswered(
  rt: Runtime,
  followUri: string,
  state: Extract<RelayState, "accepted" | "rejected">,
): Promise<boolean> {
  const result = await rt.db
    .updateTable("relays")
    .set({ state, updated_at: new Date() })
    .where("follow_activity_id", "=", followUri)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Whether `inboxUrl` (an actor's inbox) is the inbox of a relay that accepted our Follow. */
export async function isAcceptedRelay(rt: Runtime, inboxUrl: string | null): Promise<boolean> {
  if (!inboxUrl) return false;
  const row = await rt.db
    .selectFrom("relays")
    .select("id")
    .where("inbox_url", "=", inboxUrl)
    .where("state", "=", "accepted")
    .executeTakeFirst();
  return row !== undefined;
}

/** The inboxes of the relays that accepted our Follow: public posts go there too. */
export async function acceptedRelayInboxes(rt: Runtime): Promise<string[]> {
  const rows = await rt.db.selectFrom("relays").select("inbox_url").where("state", "=", "accepted").execute();
  return rows.map((r) => r.inbox_url);
}
