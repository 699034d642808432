// Statuses of other servers: a Note or Question that arrived (in a Create, an Announce, or as the
// parent of a reply) stored as a status of its author, with its mentions, hashtags and poll, and
// then treated as a local post is: searchable, in the home feeds of local followers, notifying the
// local accounts it mentions. Storing the same object again returns the stored status. Parents of
// replies are fetched up to a few levels deep.
import type { Context } from "@fedify/fedify";
import { type Object as ApObject, Document, Hashtag, Mention, Note, Question } from "@fedify/fedify/vocab";
import type { Selectable } from "kysely";
import type { Db } from "../db/index.ts";
import { prepared } from "../db/prepared.ts";
import type { AccountsTable, MediaMeta, MediaType, Visibility } from "../db/schema.ts";
import { newId } from "../domain/ids.ts";
import { isValidHashtag, sanitizeRemoteHtml } from "../domain/text/index.ts";
import { shape } from "../media/process.ts";
import type { Runtime } from "../runtime.ts";
import type { PollRecord } from "../services/statuses/polls.ts";
import {
  applyEdit,
  insertStatus,
  type ParsedStatus,
  pollOptions,
  type RemoteMedia,
} from "../services/statuses/write.ts";
import { publishEvent } from "../streaming/events.ts";
import { isPublicAddress } from "./addressing.ts";
import { keepEmojisOf } from "./emojis.ts";
import { mediaTermsOf } from "./media_terms.ts";
import { peerPolicy, refused } from "./peers.ts";
import { remotePolicyBits, storeRemoteQuote, updateRemoteQuote } from "./quotes.ts";
import { accountByUri, isFresh, signedLoader } from "./remote_accounts.ts";

/** How many parents up a reply's thread are fetched. */
export const MAX_PARENT_DEPTH = 3;
const MAX_CONTENT = 100_000;

export type StatusObject = Note | Question;

export const isStatusObject = (o: unknown): o is StatusObject => o instanceof Note || o instanceof Question;

/** Mastodon's reading of to/cc: public, unlisted, followers-only, or direct. */
function visibilityOf(object: ApObject, followersUrl: string | null): Visibility {
  const to = object.toIds.map((u) => u.href);
  const cc = object.ccIds.map((u) => u.href);
  const isPublic = (list: string[]) => list.some(isPublicAddress);
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
async function attachmentsOf(object: StatusObject, json: unknown): Promise<RemoteMedia[]> {
  const terms = mediaTermsOf(typeof json === "object" && json ? json : await object.toJsonLd());
  const found: RemoteMedia[] = [];
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

async function pollOf(object: StatusObject): Promise<PollRecord | null> {
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
  return {
    options: options.map((o) => o.name),
    multiple,
    hideTotals: false,
    expiresAt: expires,
    tallies: options.map((o) => o.votes),
    votersCount: object.voters ?? 0,
  };
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

/** The parent of a reply, as a status row (fetched and stored when new), or null. */
async function parentOf(rt: Runtime, ctx: Context<Runtime>, uri: string, depth: number) {
  const id = await statusFromUri(rt, ctx, uri, depth);
  if (!id) return null;
  const row = await statusByUri(rt.db, uri);
  // Stored by another URI (a local status named by its URL): read it by id.
  return row?.id === id
    ? row
    : ((await rt.db
        .selectFrom("statuses")
        .select(["id", "account_id", "conversation_id"])
        .where("id", "=", id)
        .executeTakeFirst()) ?? null);
}

const AUTHOR_COLUMNS = ["id", "domain", "followers_url", "suspended_at", "fetched_at"] as const;
type AuthorRow = Pick<Selectable<AccountsTable>, (typeof AUTHOR_COLUMNS)[number]>;

/**
 * The stored author of an object, read again from its server when new or stale; null when it cannot
 * post. `read` is its row when the caller has read it already.
 */
async function authorOf(rt: Runtime, ctx: Context<Runtime>, uri: string, read?: AuthorRow) {
  const row = () => rt.db.selectFrom("accounts").select(AUTHOR_COLUMNS).where("uri", "=", uri).executeTakeFirst();
  let author = read ?? (await row());
  if (!author || !isFresh(author)) {
    if (!(await accountByUri(rt, ctx, uri))) return null;
    author = await row();
  }
  return author && author.domain !== null && !author.suspended_at ? author : null;
}

/** The stored author of an object with its stored status, if any, in one read (no row when the author is not stored). */
const authorWithStatus = prepared((db, _: null, v: { authorUri: string; uri: string }) =>
  db
    .selectFrom("accounts as a")
    .leftJoin("statuses as s", (join) => join.on("s.uri", "=", v.uri))
    .select(AUTHOR_COLUMNS.map((c) => `a.${c}` as const))
    .select(["s.id as status_id", "s.deleted_at as status_deleted_at"])
    .where("a.uri", "=", v.authorUri),
);

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
  // The author and the status in one read when the author is known; else the status alone.
  const [known] = await authorWithStatus(rt.db, null, { authorUri: object.attributionId.href, uri });
  const stored = known
    ? known.status_id === null
      ? undefined
      : { id: known.status_id, deleted_at: known.status_deleted_at }
    : await statusByUri(rt.db, uri);
  if (stored) return stored.deleted_at ? null : stored.id;
  // An object speaks for an author of its own server only.
  if (object.id.host !== object.attributionId.host) return null;
  const author = await authorOf(rt, ctx, object.attributionId.href, known);
  if (!author) return null;

  const parent =
    object.replyTargetId && depth < MAX_PARENT_DEPTH
      ? await parentOf(rt, ctx, object.replyTargetId.href, depth + 1)
      : null;
  const text = await textParts(object);
  if (author.domain !== null) await keepEmojisOf(rt, author.domain, object);
  // A server whose media are rejected has its statuses stored without them.
  const media = (await peerPolicy(rt, object.id.host)).rejectMedia
    ? []
    : await attachmentsOf(object, json).catch(() => []);
  const id = newId();
  const created = object.published ? new Date(object.published.epochMilliseconds) : new Date();
  const now = new Date();
  const status: ParsedStatus = {
    id,
    uri,
    url: object.url instanceof URL ? object.url.href : (object.url?.href?.href ?? null),
    accountId: author.id,
    local: false,
    visibility: visibilityOf(object, author.followers_url),
    text: "",
    content: text.content,
    spoilerText: text.spoiler,
    sensitive: text.sensitive || text.spoiler !== "",
    language: text.language,
    parent,
    applicationId: null,
    createdAt: created > now ? now : created,
    editedAt: object.updated ? new Date(object.updated.epochMilliseconds) : null,
    mentioned: await knownAccounts(rt, text.mentionUris),
    tags: text.tags,
    poll: await pollOf(object),
    media: [],
    remoteMedia: media,
    quoteApprovalPolicy: remotePolicyBits(object, {
      uri: object.attributionId.href,
      followers_url: author.followers_url,
    }),
  };
  const written = await rt.db.transaction().execute(async (trx) => {
    const inserted = await insertStatus(rt, trx, status);
    // Stored by another job at the same moment: that one is the status.
    return inserted ? { id, ...inserted } : { id: (await statusByUri(trx, uri))?.id ?? null, afterCommit: null };
  });
  await written.afterCommit?.();
  if (written.afterCommit && written.id) await storeRemoteQuote(rt, ctx, object, written.id, author.id, depth);
  return written.id;
}

/** An edit of a stored remote status: its text, mentions, hashtags, quote and poll counts now. */
export async function updateStatus(
  rt: Runtime,
  ctx: Context<Runtime>,
  object: StatusObject,
  authorId: string,
): Promise<void> {
  if (!object.id) return;
  const stored = await statusByUri(rt.db, object.id.href);
  if (!stored || stored.deleted_at || stored.account_id !== authorId) return;
  const author = await rt.db
    .selectFrom("accounts")
    .select(["domain", "uri", "followers_url"])
    .where("id", "=", authorId)
    .executeTakeFirst();
  if (author?.domain) await keepEmojisOf(rt, author.domain, object);
  // Who may quote it changes without an edit (Mastodon's interaction_policy sends an Update).
  const policy = author ? remotePolicyBits(object, author) : 0;
  const repoliced = await rt.db
    .updateTable("statuses")
    .set({ quote_approval_policy: policy })
    .where("id", "=", stored.id)
    .where("quote_approval_policy", "!=", policy)
    .executeTakeFirst();
  if (Number(repoliced.numUpdatedRows) > 0) await publishEvent(rt, "statuses.changed", { ids: [stored.id] });
  const text = await textParts(object);
  const mentioned = await knownAccounts(rt, text.mentionUris);
  const poll = await pollOf(object);
  const edited = object.updated ? new Date(object.updated.epochMilliseconds) : new Date();
  const { edited_at } = await rt.db
    .selectFrom("statuses")
    .select("edited_at")
    .where("id", "=", stored.id)
    .executeTakeFirstOrThrow();
  // A redelivered or older Update changes nothing, its quote included.
  const requoted =
    !(edited_at && edited_at >= edited) && (await updateRemoteQuote(rt, ctx, object, stored.id, authorId));
  const changed = await rt.db.transaction().execute(async (trx) => {
    const before = await trx
      .selectFrom("statuses")
      .select([
        "id",
        "account_id",
        "text",
        "content",
        "spoiler_text",
        "sensitive",
        "language",
        "created_at",
        "edited_at",
      ])
      .where("id", "=", stored.id)
      .executeTakeFirstOrThrow();
    // A redelivered or older Update changes nothing.
    if (before.edited_at && before.edited_at >= edited) return false;
    if (before.content === text.content && before.spoiler_text === text.spoiler && !poll && !requoted) return false;
    if (poll && stored.poll_id) {
      await trx
        .updateTable("polls")
        .set({
          tallies: JSON.stringify(poll.tallies),
          votes_count: poll.tallies.reduce((n, t) => n + t, 0),
          voters_count: poll.votersCount,
          updated_at: new Date(),
        })
        .where("id", "=", stored.poll_id)
        .execute();
    }
    await applyEdit(rt, trx, before, {
      text: "",
      content: text.content,
      spoilerText: text.spoiler,
      sensitive: text.sensitive || text.spoiler !== "",
      language: text.language,
      editedAt: edited,
      mentioned,
      tags: text.tags,
      mediaBefore: null,
      mediaAfter: null,
      // An Update changes a poll's counts here, never its options.
      pollBefore: await pollOptions(trx, stored.id),
    });
    return true;
  });
  if (!changed) return;
  await publishEvent(rt, "statuses.changed", { ids: [stored.id] });
  await publishEvent(rt, "statuses.edited", { id: stored.id });
}
