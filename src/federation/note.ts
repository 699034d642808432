// A status as an ActivityPub object, as Mastodon's ActivityPub::NoteSerializer writes it: a Note (a
// Question for a poll) with to/cc derived from its visibility, its reply parent, mentions and
// hashtags and custom emojis, content warning and language map, attachments as Documents, and
// `updated` after an edit.

import { type DocumentLoader, LanguageString } from "@fedify/fedify";
import {
  Collection,
  Create,
  Document,
  type Emoji,
  Hashtag,
  Mention,
  Note,
  PUBLIC_COLLECTION,
  Question,
} from "@fedify/fedify/vocab";
import type { Selectable } from "kysely";
import type { StatusesTable } from "../db/schema.ts";
import { urls } from "../domain/urls.ts";
import { mediaStorage } from "../media/storage.ts";
import type { Runtime } from "../runtime.ts";
import { type CustomEmoji, emojisIn, localEmojis } from "../services/emojis/custom_emojis.ts";
import { localEmojiTags } from "./emojis.ts";
import { addMediaTerms } from "./media_terms.ts";
import { interactionPolicyOf, noteQuoteTerms } from "./quotes.ts";
import { repliesUri } from "./replies_collection.ts";
import { instant } from "./temporal.ts";

export type StatusRowFull = Selectable<StatusesTable>;

export interface NoteParts {
  row: StatusRowFull;
  author: { uri: string; followers_url: string | null };
  mentions: { uri: string; acct: string; url: string | null }[];
  tags: string[];
  parentUri: string | null;
  poll: { options: string[]; tallies: number[]; multiple: boolean; expires_at: Date; voters_count: number } | null;
  media: {
    url: string;
    mediaType: string | null;
    description: string | null;
    width: number | null;
    height: number | null;
    blurhash: string | null;
    focus: { x: number; y: number } | null;
  }[];
  /** This server's custom emojis that a local status uses. */
  emojis: CustomEmoji[];
}

/** What a status's object is made of, or null when it does not exist (or is a boost). */
export async function loadNoteParts(rt: Runtime, statusId: string): Promise<NoteParts | null> {
  const row = await rt.db.selectFrom("statuses").selectAll().where("id", "=", statusId).executeTakeFirst();
  if (!row || row.reblog_of_id) return null;
  const [author, mentions, tags, parent, poll] = await Promise.all([
    rt.db
      .selectFrom("accounts")
      .select(["uri", "followers_url"])
      .where("id", "=", row.account_id)
      .executeTakeFirstOrThrow(),
    rt.db
      .selectFrom("status_mentions as m")
      .innerJoin("accounts as a", "a.id", "m.account_id")
      .select(["a.uri", "a.username", "a.domain", "a.url"])
      .where("m.status_id", "=", statusId)
      .where("m.silent", "=", false)
      .orderBy("m.id")
      .execute(),
    rt.db
      .selectFrom("status_tags as st")
      .innerJoin("tags as t", "t.id", "st.tag_id")
      .select("t.display_name")
      .where("st.status_id", "=", statusId)
      .execute(),
    row.in_reply_to_id
      ? rt.db.selectFrom("statuses").select("uri").where("id", "=", row.in_reply_to_id).executeTakeFirst()
      : undefined,
    row.poll_id ? rt.db.selectFrom("polls").selectAll().where("id", "=", row.poll_id).executeTakeFirst() : undefined,
  ]);
  const media = await rt.db
    .selectFrom("media_attachments")
    .selectAll()
    .where("status_id", "=", statusId)
    .where("position", "is not", null)
    .orderBy("position")
    .execute();
  const storage = mediaStorage(rt.config);
  return {
    row,
    emojis: row.local ? emojisIn(await localEmojis(rt), row.spoiler_text, row.content) : [],
    author,
    mentions: mentions.map((m) => ({
      uri: m.uri,
      url: m.url,
      acct: `@${m.username}@${m.domain ?? rt.config.localDomain}`,
    })),
    tags: tags.map((t) => t.display_name),
    parentUri: parent?.uri ?? null,
    poll: poll ?? null,
    media: media.flatMap((m) => {
      const url = m.file_key ? storage.url(m.file_key) : m.remote_url;
      const size = m.meta.original ?? {};
      if (!url) return [];
      return [
        {
          url,
          mediaType: m.content_type,
          description: m.description,
          width: typeof size.width === "number" ? size.width : null,
          height: typeof size.height === "number" ? size.height : null,
          blurhash: m.blurhash,
          focus: m.meta.focus ?? null,
        },
      ];
    }),
  };
}

/** Mastodon's to/cc for a visibility: who is addressed, and who is copied. */
export function addressing(visibility: string, followersUrl: string, mentionUris: string[]): { to: URL[]; cc: URL[] } {
  const followers = new URL(followersUrl);
  const mentioned = mentionUris.map((u) => new URL(u));
  switch (visibility) {
    case "public":
      return { to: [PUBLIC_COLLECTION], cc: [followers, ...mentioned] };
    case "unlisted":
      return { to: [followers], cc: [PUBLIC_COLLECTION, ...mentioned] };
    case "private":
      return { to: [followers], cc: mentioned };
    default:
      return { to: mentioned, cc: [] };
  }
}

/** An actor's followers collection: the one it names, or Mastodon's path under its id. */
export function followersUrlOf(author: { uri: string; followers_url: string | null }): string {
  return author.followers_url ?? `${author.uri}/followers`;
}

export async function noteObject(rt: Runtime, parts: NoteParts): Promise<Note | Question> {
  const { row } = parts;
  const { to, cc } = addressing(
    row.visibility,
    followersUrlOf(parts.author),
    parts.mentions.map((m) => m.uri),
  );
  const content = row.content;
  const tags: (Mention | Hashtag | Emoji)[] = [
    ...parts.mentions.map((m) => new Mention({ href: new URL(m.uri), name: m.acct })),
    ...parts.tags.map(
      (name) => new Hashtag({ href: new URL(urls(rt.config).tagUrl(name.toLowerCase())), name: `#${name}` }),
    ),
    ...localEmojiTags(rt, parts.emojis),
  ];
  const values = {
    id: new URL(row.uri),
    url: new URL(row.url ?? row.uri),
    attribution: new URL(parts.author.uri),
    tos: to,
    ccs: cc,
    published: instant(row.created_at),
    updated: row.edited_at ? instant(row.edited_at) : null,
    replyTarget: parts.parentUri ? new URL(parts.parentUri) : null,
    // Where other servers find the replies this one knows (replies_collection.ts).
    replies: row.local ? new URL(repliesUri(row.uri)) : null,
    summary: row.spoiler_text || null,
    sensitive: row.sensitive,
    contents: row.language ? [content, new LanguageString(content, row.language)] : [content],
    tags,
    attachments: parts.media.map(
      (m) =>
        new Document({
          url: new URL(m.url),
          mediaType: m.mediaType,
          name: m.description,
          width: m.width,
          height: m.height,
        }),
    ),
    // Quotes as Mastodon writes them: `quote`, with `quoteUrl`, `_misskey_quote` and `quoteUri` for
    // the servers that read those, the stamp once accepted, and who may quote it.
    ...(await noteQuoteTerms(rt, row.id)),
    interactionPolicy: interactionPolicyOf(row.quote_approval_policy, {
      uri: parts.author.uri,
      followersUrl: followersUrlOf(parts.author),
    }),
  };
  if (!parts.poll) return new Note(values);
  const poll = parts.poll;
  const options = poll.options.map(
    (name, i) => new Note({ name, replies: new Collection({ totalItems: poll.tallies[i] ?? 0 }) }),
  );
  return new Question({
    ...values,
    ...(poll.multiple ? { inclusiveOptions: options } : { exclusiveOptions: options }),
    endTime: instant(poll.expires_at),
    closed: poll.expires_at <= new Date() ? instant(poll.expires_at) : null,
    voters: poll.voters_count,
  });
}

/**
 * The object that a fetch of the status is answered with: noteObject's, with the media terms
 * Fedify's vocabulary lacks written into the JSON it serves (an object parsed from JSON serves
 * that JSON as it is).
 */
export async function servedNote(
  rt: Runtime,
  parts: NoteParts,
  contextLoader: DocumentLoader,
): Promise<Note | Question> {
  const object = await noteObject(rt, parts);
  if (!parts.media.some((m) => m.blurhash || m.focus)) return object;
  const json = (await object.toJsonLd({ format: "compact", contextLoader })) as Record<string, unknown>;
  addMediaTerms(json, json, parts.media);
  const options = { contextLoader, documentLoader: contextLoader };
  return object instanceof Question ? Question.fromJsonLd(json, options) : Note.fromJsonLd(json, options);
}

/** The Create of a status, as the outbox serves it (and an account's archive holds it). */
export async function servedCreate(rt: Runtime, parts: NoteParts, contextLoader: DocumentLoader): Promise<Create> {
  const note = await servedNote(rt, parts, contextLoader);
  return new Create({
    id: new URL(`${parts.row.uri}/activity`),
    actor: new URL(parts.author.uri),
    tos: note.toIds,
    ccs: note.ccIds,
    published: note.published,
    object: note,
  });
}
