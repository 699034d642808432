// Statuses of other servers: a Note or Question that arrived (in a Create, an Announce, or as the
// parent of a reply) stored as a status of its author, with its mentions, hashtags and poll, and
// then treated as a local post is: searchable, in the home feeds of local followers, notifying the
// local accounts it mentions. Storing the same object again returns the stored status. Parents of
// replies are fetched up to a few levels deep.
import type { Context } from "@fedify/fedify";
import {
  type Object as ApObject,
  Document,
  Hashtag,
  Mention,
  Note,
  PUBLIC_COLLECTION,
  Question,
} from "@fedify/fedify/vocab";
import { sql } from "kysely";
import type { Db } from "../db/index.ts";
import type { MediaMeta, MediaType, Visibility } from "../db/schema.ts";
import { newId } from "../domain/ids.ts";
import { isValidHashtag, sanitizeRemoteHtml } from "../domain/text/index.ts";
import { shape } from "../media/process.ts";
import type { Runtime } from "../runtime.ts";
import { addMentions, addTags, replaceMentions, replaceTags } from "../services/statuses/compose.ts";
import { statusPosted } from "../services/statuses/side_effects.ts";
import { publishEvent } from "../streaming/events.ts";
import { keepEmojisOf } from "./emojis.ts";
import { mediaTermsOf } from "./media_terms.ts";
import { peerPolicy, refused } from "./peers.ts";
import { accountByUri, signedLoader } from "./remote_accounts.ts";

/** How many parents up a reply's thread are fetched. */
export const MAX_PARENT_DEPTH = 3;
const MAX_CONTENT = 100_000;

export type StatusObject = Note | Question;

export const isStatusObject = (o: unknown): o is StatusObject => o instanceof Note || o instanceof Question;

/** Mastodon's reading of to/cc: public, unlisted, followers-only, or direct. */
function visibilityOf(object: ApObject, followersUrl: string | null): Visibility {
  const to = object.toIds.map((u) => u.href);
  const cc = object.ccIds.map((u) => u.href);
  const pub = PUBLIC_COLLECTION.href;
  const isPublic = (list: string[]) => list.some((u) => u === pub || u === "as:Public" || u === "Public");
  if (isPublic(to)) return "public";
  if (isPublic(cc)) return "unlisted";
  if (followersUrl && [...to, ...cc].includes(followersUrl)) return "private";
  return "direct";
}

async function textParts(object: StatusObject) {
  const content = sanitizeRemoteHtml(String(object.content ?? "").slice(0, MAX_CONTENT));
  let language: string | null = null;
  for (const c of object.contents) {
    if (typeof c !== "string" && c.locale) {
      language = c.locale.language ?? null;
      break;
    }
  }
  const mentionUris: string[] = [];
  const tags: string[] = [];
  for await (const tag of object.getTags()) {
    if (tag instanceof Mention && tag.href) mentionUris.push(tag.href.href);
    else if (tag instanceof Hashtag && tag.name) {
      const name = String(tag.name).replace(/^#/, "");
      if (isValidHashtag(name)) tags.push(name);
    }
  }
  return {
    content,
    spoiler: String(object.summary ?? "").slice(0, 5000),
    sensitive: object.sensitive ?? false,
    language,
    mentionUris,
    tags,
  };
}

/** Mastodon shows at most four attachments of a remote status. */
const MAX_ATTACHMENTS = 4;

function mediaTypeOf(contentType: string | null): MediaType {
  if (contentType?.startsWith("image/")) return "image";
  if (contentType?.startsWith("video/")) return "video";
  if (contentType?.startsWith("audio/")) return "audio";
  return "unknown";
}

/**
 * The attachments of an object, referenced by their remote URLs (nothing is copied here yet).
 * `json` is the object as its server wrote it, for the terms Fedify does not read (blurhash,
 * focalPoint); an object fetched on its own still has its JSON.
 */
async function attachmentsOf(object: StatusObject, json: unknown) {
  const terms = mediaTermsOf(typeof json === "object" && json ? json : await object.toJsonLd());
  const found: {
    url: string;
    contentType: string | null;
    description: string | null;
    type: MediaType;
    meta: MediaMeta;
    blurhash: string | null;
  }[] = [];
  for await (const item of object.getAttachments()) {
    if (found.length >= MAX_ATTACHMENTS) break;
    if (!(item instanceof Document)) continue;
    const url = item.url instanceof URL ? item.url.href : (item.url?.href?.href ?? null);
    if (!url || !/^https?:/.test(url)) continue;
    const contentType = item.mediaType ?? null;
    const description = item.name ? String(item.name).slice(0, 1500) : null;
    const { blurhash = null, focus = null } = terms.get(url) ?? {};
    const meta: MediaMeta = {};
    if (item.width && item.height && item.width > 0 && item.height > 0) meta.original = shape(item.width, item.height);
    if (focus) meta.focus = focus;
    found.push({ url, contentType, description, type: mediaTypeOf(contentType), meta, blurhash });
  }
  return found;
}

/** The ids of stored accounts among `uris`: local ones, and remote ones already known. */
async function knownAccounts(rt: Runtime, uris: string[]): Promise<string[]> {
  if (uris.length === 0) return [];
  const rows = await rt.db.selectFrom("accounts").select("id").where("uri", "in", uris).execute();
  return [...new Set(rows.map((r) => r.id))];
}

async function pollOf(object: StatusObject) {
  if (!(object instanceof Question)) return null;
  const multiple = object.inclusiveOptionIds.length > 0 || (await first(object.getInclusiveOptions())) !== null;
  const options: { name: string; votes: number }[] = [];
  const source = multiple ? object.getInclusiveOptions() : object.getExclusiveOptions();
  for await (const option of source) {
    if (!(option instanceof Note) || !option.name) continue;
    const replies = await option.getReplies().catch(() => null);
    options.push({ name: String(option.name).slice(0, 200), votes: replies?.totalItems ?? 0 });
    if (options.length >= 20) break;
  }
  if (options.length < 1) return null;
  const end = object.endTime ?? object.closed;
  const expires = end && typeof end !== "boolean" ? new Date(end.epochMilliseconds) : new Date(Date.now() + 86400_000);
  return { options, multiple, expires, voters: object.voters ?? 0 };
}

async function first<T>(items: AsyncIterable<T>): Promise<T | null> {
  for await (const item of items) return item;
  return null;
}

/** The stored status of an object URI, if any. */
export async function statusByUri(db: Db, uri: string) {
  return db
    .selectFrom("statuses")
    .select(["id", "account_id", "deleted_at", "conversation_id", "poll_id", "visibility"])
    .where("uri", "=", uri)
    .executeTakeFirst();
}

/**
 * The status of `uri`: stored, or fetched and stored now (replies fetch their parents, `depth`
 * levels at most). Null when it cannot be had.
 */
export async function statusFromUri(
  rt: Runtime,
  ctx: Context<Runtime>,
  uri: string,
  depth = 0,
): Promise<string | null> {
  const stored = await statusByUri(rt.db, uri);
  if (stored) return stored.deleted_at ? null : stored.id;
  if (new URL(uri).host === new URL(rt.config.origin).host || (await refused(rt, uri))) return null;
  const object = await ctx.lookupObject(uri, { documentLoader: await signedLoader(ctx) }).catch(() => null);
  if (!isStatusObject(object)) return null;
  return storeStatus(rt, ctx, object, depth);
}

/** Stores a remote Note or Question; returns its status id (the stored one when it came before). */
export async function storeStatus(
  rt: Runtime,
  ctx: Context<Runtime>,
  object: StatusObject,
  depth = 0,
  /** The object as it arrived inside an activity, for what Fedify does not read. */
  json?: unknown,
): Promise<string | null> {
  if (!object.id || !object.attributionId) return null;
  const uri = object.id.href;
  const stored = await statusByUri(rt.db, uri);
  if (stored) return stored.deleted_at ? null : stored.id;
  // An object speaks for an author of its own server only.
  if (object.id.host !== object.attributionId.host) return null;
  const authorId = await accountByUri(rt, ctx, object.attributionId.href);
  if (!authorId) return null;
  const author = await rt.db
    .selectFrom("accounts")
    .select(["domain", "followers_url", "suspended_at"])
    .where("id", "=", authorId)
    .executeTakeFirstOrThrow();
  if (author.domain === null || author.suspended_at) return null;

  const parentId =
    object.replyTargetId && depth < MAX_PARENT_DEPTH
      ? await statusFromUri(rt, ctx, object.replyTargetId.href, depth + 1)
      : null;
  const parent = parentId
    ? await rt.db
        .selectFrom("statuses")
        .select(["id", "account_id", "conversation_id"])
        .where("id", "=", parentId)
        .executeTakeFirst()
    : undefined;
  const text = await textParts(object);
  const mentioned = await knownAccounts(rt, text.mentionUris);
  const poll = await pollOf(object);
  await keepEmojisOf(rt, author.domain, object);
  // A server whose media are rejected has its statuses stored without them.
  const media = (await peerPolicy(rt, object.id.host)).rejectMedia
    ? []
    : await attachmentsOf(object, json).catch(() => []);
  const visibility = visibilityOf(object, author.followers_url);
  const id = newId();
  const created = object.published ? new Date(object.published.epochMilliseconds) : new Date();
  const now = new Date();
  const url = object.url instanceof URL ? object.url.href : (object.url?.href?.href ?? null);

  return rt.db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto("statuses")
      .values({
        id,
        uri,
        url,
        account_id: authorId,
        local: false,
        visibility,
        text: "",
        content: text.content,
        spoiler_text: text.spoiler,
        sensitive: text.sensitive || text.spoiler !== "",
        language: text.language,
        in_reply_to_id: parent?.id ?? null,
        in_reply_to_account_id: parent?.account_id ?? null,
        reblog_of_id: null,
        conversation_id: parent ? (parent.conversation_id ?? parent.id) : id,
        application_id: null,
        created_at: created > now ? now : created,
        updated_at: now,
        edited_at: object.updated ? new Date(object.updated.epochMilliseconds) : null,
        deleted_at: null,
      })
      .onConflict((oc) => oc.column("uri").doNothing())
      .returning("id")
      .executeTakeFirst();
    // Stored by another job at the same moment: that one is the status.
    if (!inserted) return (await statusByUri(trx, uri))?.id ?? null;
    await trx.insertInto("status_stats").values({ status_id: id }).execute();
    await addMentions(trx, id, mentioned);
    await addTags(trx, id, text.tags, now);
    for (const [position, m] of media.entries()) {
      await trx
        .insertInto("media_attachments")
        .values({
          id: newId(),
          account_id: authorId,
          status_id: id,
          position,
          scheduled_status_id: null,
          type: m.type,
          processing: "done",
          upload_key: null,
          file_key: null,
          preview_key: null,
          content_type: m.contentType,
          file_size: 0,
          meta: JSON.stringify(m.meta),
          description: m.description,
          blurhash: m.blurhash,
          remote_url: m.url,
          created_at: now,
          updated_at: now,
        })
        .execute();
    }
    if (poll) {
      const pollId = newId();
      await trx
        .insertInto("polls")
        .values({
          id: pollId,
          status_id: id,
          account_id: authorId,
          options: JSON.stringify(poll.options.map((o) => o.name)),
          tallies: JSON.stringify(poll.options.map((o) => o.votes)),
          votes_count: poll.options.reduce((n, o) => n + o.votes, 0),
          voters_count: poll.voters,
          multiple: poll.multiple,
          hide_totals: false,
          expires_at: poll.expires,
          created_at: now,
          updated_at: now,
        })
        .execute();
      await trx.updateTable("statuses").set({ poll_id: pollId }).where("id", "=", id).execute();
    }
    await trx
      .updateTable("account_stats")
      .set({ statuses_count: sql`statuses_count + 1`, last_status_at: now })
      .where("account_id", "=", authorId)
      .execute();
    if (parent) {
      await trx
        .updateTable("status_stats")
        .set({ replies_count: sql`replies_count + 1` })
        .where("status_id", "=", parent.id)
        .execute();
    }
    await statusPosted(rt, trx, { id, mentioned, visibility });
    return id;
  });
}

/** An edit of a stored remote status: its text, mentions, hashtags and poll counts now. */
export async function updateStatus(rt: Runtime, object: StatusObject, authorId: string): Promise<void> {
  if (!object.id) return;
  const stored = await statusByUri(rt.db, object.id.href);
  if (!stored || stored.deleted_at || stored.account_id !== authorId) return;
  const author = await rt.db.selectFrom("accounts").select("domain").where("id", "=", authorId).executeTakeFirst();
  if (author?.domain) await keepEmojisOf(rt, author.domain, object);
  const text = await textParts(object);
  const mentioned = await knownAccounts(rt, text.mentionUris);
  const poll = await pollOf(object);
  const now = new Date();
  const edited = object.updated ? new Date(object.updated.epochMilliseconds) : now;
  await rt.db.transaction().execute(async (trx) => {
    const before = await trx
      .selectFrom("statuses")
      .select(["content", "spoiler_text", "sensitive", "language", "created_at", "edited_at"])
      .where("id", "=", stored.id)
      .executeTakeFirstOrThrow();
    // A redelivered or older Update changes nothing.
    if (before.edited_at && before.edited_at >= edited) return;
    if (before.content === text.content && before.spoiler_text === text.spoiler && !poll) return;
    if (!before.edited_at) {
      await trx
        .insertInto("status_edits")
        .values({
          id: newId(),
          status_id: stored.id,
          account_id: authorId,
          text: "",
          content: before.content,
          spoiler_text: before.spoiler_text,
          sensitive: before.sensitive,
          language: before.language,
          media: null,
          created_at: before.created_at,
        })
        .execute();
    }
    await trx
      .updateTable("statuses")
      .set({
        content: text.content,
        spoiler_text: text.spoiler,
        sensitive: text.sensitive || text.spoiler !== "",
        language: text.language,
        edited_at: edited,
        updated_at: now,
      })
      .where("id", "=", stored.id)
      .execute();
    await trx
      .insertInto("status_edits")
      .values({
        id: newId(),
        status_id: stored.id,
        account_id: authorId,
        text: "",
        content: text.content,
        spoiler_text: text.spoiler,
        sensitive: text.sensitive || text.spoiler !== "",
        language: text.language,
        media: null,
        created_at: edited,
      })
      .execute();
    await replaceMentions(trx, stored.id, mentioned);
    await replaceTags(trx, stored.id, text.tags, now);
    if (poll && stored.poll_id) {
      await trx
        .updateTable("polls")
        .set({
          tallies: JSON.stringify(poll.options.map((o) => o.votes)),
          votes_count: poll.options.reduce((n, o) => n + o.votes, 0),
          voters_count: poll.voters,
          updated_at: now,
        })
        .where("id", "=", stored.poll_id)
        .execute();
    }
  });
  await publishEvent(rt, "statuses.changed", { ids: [stored.id] });
}
