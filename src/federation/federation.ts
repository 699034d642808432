// The Fedify federation of a runtime, built once per runtime (a process, or each test server): its
// key-value store and message queue live in Rookery's database and job queue, every remote
// document is read through src/net, and the dispatchers below serve this server's actors, objects
// and collections. Inbox listeners are in inbox.ts.
import { createFederation, type Federation } from "@fedify/fedify";
import {
  Collection,
  type Create,
  Emoji,
  Hashtag,
  Note,
  QuoteAuthorization,
  type Recipient,
} from "@fedify/fedify/vocab";
import { isId } from "../domain/ids.ts";
import type { Runtime } from "../runtime.ts";
import { INSTANCE_ACTOR, instanceActor, localActor } from "./actor.ts";
import { authenticatedDocumentLoaderFactory, contextLoaderFactory, documentLoaderFactory } from "./document_loader.ts";
import { localEmojiTags } from "./emojis.ts";
import { registerInbox } from "./inbox.ts";
import { actorKeyPairs, INSTANCE_KEY_OWNER } from "./keys.ts";
import { databaseKvStore } from "./kv_store.ts";
// Fedify reads JSON-LD through this: installed before any reading.
import "./jsonld_expansions.ts";
import { localAccountByUsername, publicLocalStatusId } from "./local_rows.ts";
import { jobMessageQueue } from "./message_queue.ts";
import { loadNoteParts, servedCreate, servedNote } from "./note.ts";
import { servedStamp } from "./quotes.ts";
import { servedReplies } from "./replies_collection.ts";
import { Temporal } from "./temporal.ts";

const federations = new WeakMap<Runtime, Federation<Runtime>>();

export function federationOf(rt: Runtime): Federation<Runtime> {
  let federation = federations.get(rt);
  if (!federation) {
    federation = buildFederation(rt);
    federations.set(rt, federation);
  }
  return federation;
}

/** The account's id, or null, for an actor identifier (its username). */
async function accountIdOf(rt: Runtime, identifier: string): Promise<string | null> {
  if (identifier === INSTANCE_ACTOR) return INSTANCE_KEY_OWNER;
  return (await localAccountByUsername(rt, identifier))?.id ?? null;
}

const PAGE = 40;

function buildFederation(rt: Runtime): Federation<Runtime> {
  const federation = createFederation<Runtime>({
    kv: databaseKvStore(rt.db),
    queue: jobMessageQueue(rt.queue),
    manuallyStartQueue: true,
    origin: rt.config.origin,
    documentLoaderFactory: documentLoaderFactory(rt.config),
    contextLoaderFactory: contextLoaderFactory(rt.config),
    authenticatedDocumentLoaderFactory: authenticatedDocumentLoaderFactory(rt.config),
    // A signature's Date may be an hour off either way, as Mastodon allows.
    signatureTimeWindow: Temporal.Duration.from({ hours: 1 }),
  });

  federation
    .setActorDispatcher("/users/{identifier}", async (ctx, identifier) => {
      if (identifier === INSTANCE_ACTOR) return instanceActor(rt, ctx);
      const row = await localAccountByUsername(rt, identifier);
      return row ? localActor(rt, ctx, row) : null;
    })
    .mapActorAlias("/actor", INSTANCE_ACTOR)
    .mapHandle(async (_ctx, username) => {
      if (username.toLowerCase() === rt.config.localDomain) return INSTANCE_ACTOR;
      return (await localAccountByUsername(rt, username))?.username ?? null;
    })
    .setKeyPairsDispatcher(async (_ctx, identifier) => {
      const owner = await accountIdOf(rt, identifier);
      if (!owner) return [];
      const pairs = await actorKeyPairs(rt.db, owner);
      return [pairs.rsa, pairs.ed25519];
    });

  federation.setObjectDispatcher(Note, "/users/{username}/statuses/{id}", async (ctx, values) => {
    const id = await publicLocalStatusId(rt, values.username, values.id);
    const parts = id ? await loadNoteParts(rt, id) : null;
    // A poll is a Question; Fedify serves whatever object the dispatcher returns.
    return parts ? ((await servedNote(rt, parts, ctx.contextLoader)) as Note) : null;
  });

  federation.setObjectDispatcher(Collection, "/users/{username}/statuses/{id}/replies", (ctx, values) =>
    servedReplies(rt, ctx, values),
  );

  // The stamps of quotes of local statuses (FEP-044f), for the servers that check them.
  federation.setObjectDispatcher(QuoteAuthorization, "/users/{username}/quote_authorizations/{id}", (_ctx, values) =>
    servedStamp(rt, values.username, values.id),
  );

  // The id of an Emoji tag resolves, as Mastodon's do, for a server that fetches it.
  federation.setObjectDispatcher(Emoji, "/emojis/{id}", async (_ctx, values) => {
    if (!isId(values.id)) return null;
    const row = await rt.db
      .selectFrom("custom_emojis")
      .selectAll()
      .where("id", "=", values.id)
      .where("domain", "is", null)
      .where("disabled", "=", false)
      .executeTakeFirst();
    return row ? localEmojiTags(rt, [row])[0] : null;
  });

  federation
    .setFollowersDispatcher("/users/{identifier}/followers", async (_ctx, identifier, cursor) => {
      const account = await localAccountByUsername(rt, identifier);
      if (!account) return null;
      if (account.hide_collections) return { items: [] };
      const rows = await rt.db
        .selectFrom("follows as f")
        .innerJoin("accounts as a", "a.id", "f.account_id")
        .select(["a.uri", "a.inbox_url", "a.shared_inbox_url", "f.id"])
        .where("f.target_account_id", "=", account.id)
        .where("a.suspended_at", "is", null)
        .$if(cursor !== null && cursor !== "", (q) => q.where("f.id", "<", cursor!))
        .orderBy("f.id", "desc")
        .limit(PAGE)
        .execute();
      const items: Recipient[] = rows.map((r) => ({
        id: new URL(r.uri),
        inboxId: r.inbox_url ? new URL(r.inbox_url) : null,
        endpoints: r.shared_inbox_url ? { sharedInbox: new URL(r.shared_inbox_url) } : null,
      }));
      return { items, nextCursor: rows.length === PAGE ? rows[rows.length - 1].id : null };
    })
    .setCounter(async (_ctx, identifier) => (await localAccountByUsername(rt, identifier))?.followers_count ?? null)
    .setFirstCursor(() => "");

  federation
    .setFollowingDispatcher("/users/{identifier}/following", async (_ctx, identifier, cursor) => {
      const account = await localAccountByUsername(rt, identifier);
      if (!account) return null;
      if (account.hide_collections) return { items: [] };
      const rows = await rt.db
        .selectFrom("follows as f")
        .innerJoin("accounts as a", "a.id", "f.target_account_id")
        .select(["a.uri", "f.id"])
        .where("f.account_id", "=", account.id)
        .where("a.suspended_at", "is", null)
        .$if(cursor !== null && cursor !== "", (q) => q.where("f.id", "<", cursor!))
        .orderBy("f.id", "desc")
        .limit(PAGE)
        .execute();
      return {
        items: rows.map((r) => new URL(r.uri)),
        nextCursor: rows.length === PAGE ? rows[rows.length - 1].id : null,
      };
    })
    .setCounter(async (_ctx, identifier) => (await localAccountByUsername(rt, identifier))?.following_count ?? null)
    .setFirstCursor(() => "");

  federation
    .setOutboxDispatcher("/users/{identifier}/outbox", async (ctx, identifier, cursor) => {
      const account = await localAccountByUsername(rt, identifier);
      if (!account) return null;
      const rows = await rt.db
        .selectFrom("statuses")
        .select("id")
        .where("account_id", "=", account.id)
        .where("visibility", "in", ["public", "unlisted"])
        .where("reblog_of_id", "is", null)
        .where("deleted_at", "is", null)
        .$if(cursor !== null && cursor !== "", (q) => q.where("id", "<", cursor!))
        .orderBy("id", "desc")
        .limit(PAGE)
        .execute();
      const items: Create[] = [];
      for (const { id } of rows) {
        const parts = await loadNoteParts(rt, id);
        if (parts) items.push(await servedCreate(rt, parts, ctx.contextLoader));
      }
      return { items, nextCursor: rows.length === PAGE ? rows[rows.length - 1].id : null };
    })
    .setCounter(async (_ctx, identifier) => (await localAccountByUsername(rt, identifier))?.statuses_count ?? null)
    .setFirstCursor(() => "");

  federation.setFeaturedDispatcher("/users/{identifier}/collections/featured", async (ctx, identifier) => {
    const account = await localAccountByUsername(rt, identifier);
    if (!account) return null;
    const pins = await rt.db
      .selectFrom("status_pins as p")
      .innerJoin("statuses as s", "s.id", "p.status_id")
      .select("s.id")
      .where("p.account_id", "=", account.id)
      .where("s.visibility", "in", ["public", "unlisted"])
      .where("s.deleted_at", "is", null)
      .orderBy("p.id", "desc")
      .execute();
    const items: Note[] = [];
    for (const { id } of pins) {
      const parts = await loadNoteParts(rt, id);
      if (parts) items.push((await servedNote(rt, parts, ctx.contextLoader)) as Note);
    }
    return { items };
  });

  federation.setFeaturedTagsDispatcher("/users/{identifier}/collections/tags", async (_ctx, identifier) => {
    const account = await localAccountByUsername(rt, identifier);
    if (!account) return null;
    const tags = await rt.db
      .selectFrom("featured_tags")
      .select("name")
      .where("account_id", "=", account.id)
      .orderBy("id")
      .execute();
    const items = tags.map(
      (t) =>
        new Hashtag({
          href: new URL(`${rt.config.origin}/@${account.username}/tagged/${encodeURIComponent(t.name)}`),
          name: `#${t.name}`,
        }),
    );
    return { items };
  });

  registerInbox(rt, federation);
  return federation;
}
