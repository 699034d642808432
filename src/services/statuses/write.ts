// Writing statuses: the one place that inserts a status with everything that belongs to it, and the
// one place that applies an edit to one with its history. Local posts and edits (post.ts, edit.ts)
// and statuses of other servers (federation/remote_statuses.ts) come here already parsed, and are
// written in their caller's transaction: the row and its counters, mentions, hashtags, poll, media,
// the search index, and the jobs that follow (fan-out, notifications).
import { type Insertable, type Selectable, sql } from "kysely";
import type { Db, Dialect } from "../../db/index.ts";
import { prepared } from "../../db/prepared.ts";
import type { EditedMedia, MediaMeta, MediaType, StatusesTable, Visibility } from "../../db/schema.ts";
import { newId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import { setStatusMedia } from "../media/attach.ts";
import type { MediaRow } from "../media/rows.ts";
import { documentOf, indexInserted, indexNewStatus } from "../search/status_index.ts";
import { addMentions, addTags, replaceMentions, replaceTags } from "./compose.ts";
import { createPoll, type PollRecord } from "./polls.ts";
import { statusEdited, statusPosted } from "./side_effects.ts";

/** An attachment of another server's status, referenced by its remote URL (nothing is copied yet). */
export interface RemoteMedia {
  url: string;
  contentType: string | null;
  description: string | null;
  type: MediaType;
  /** Its size and focal point, as its server gave them. */
  meta: MediaMeta;
  blurhash: string | null;
}

/** A status ready to be stored: its text rendered (local) or sanitized (remote), its accounts known. */
export interface ParsedStatus {
  id: string;
  uri: string;
  url: string | null;
  accountId: string;
  local: boolean;
  visibility: Visibility;
  /** The source text (local statuses; empty for remote ones). */
  text: string;
  content: string;
  spoilerText: string;
  sensitive: boolean;
  language: string | null;
  parent: { id: string; account_id: string; conversation_id: string | null } | null;
  applicationId: string | null;
  createdAt: Date;
  editedAt: Date | null;
  /** Accounts mentioned (ids). */
  mentioned: string[];
  tags: string[];
  poll: PollRecord | null;
  /** Uploads of the author's, attached in this order. */
  media: MediaRow[];
  remoteMedia: RemoteMedia[];
  /** Who may quote it (visibility/quote.ts); nobody but its author when not given. */
  quoteApprovalPolicy?: number;
}

/** The author's counters after a new status; `at` is its time (a Date, or an expression on PostgreSQL). */
const countAuthor = <T>(at: T) => ({ statuses_count: sql<number>`statuses_count + 1`, last_status_at: at });
const countReply = { replies_count: sql<number>`replies_count + 1` };

/**
 * A new status's row, unless one with its URI is stored; its id when it was inserted. On PostgreSQL,
 * in the same round trip, its counters and its search entry (of `document`): CTEs that see only a
 * row the insert did make. Made for every status stored, so compiled once.
 */
const insertStatusRow = prepared<Dialect, Insertable<StatusesTable> & { document: string }, { id: string }>(
  (db, dialect, { document, ...row }) => {
    const insert = db
      .insertInto("statuses")
      .values(row)
      .onConflict((oc) => oc.column("uri").doNothing())
      .returning(["id", "account_id", "in_reply_to_id", "updated_at"]);
    if (dialect !== "postgres") return insert;
    return db
      .with("inserted", () => insert)
      .with("stats", (q) =>
        q.insertInto("status_stats").columns(["status_id"]).expression(q.selectFrom("inserted").select("id")),
      )
      .with("author", (q) =>
        q
          .updateTable("account_stats")
          .set(countAuthor(q.selectFrom("inserted").select("updated_at")))
          .where("account_id", "in", q.selectFrom("inserted").select("account_id")),
      )
      .with("parent", (q) =>
        q
          .updateTable("status_stats")
          .set(countReply)
          .where("status_id", "in", q.selectFrom("inserted").select("in_reply_to_id")),
      )
      .with("searched", () => indexInserted("inserted", document))
      .selectFrom("inserted")
      .select("id");
  },
);

// SQLite's counters of a new status, one statement each (the CTEs above on PostgreSQL), compiled once.
const insertStatsRow = prepared((db, _: null, v: { statusId: string }) =>
  db.insertInto("status_stats").values({ status_id: v.statusId }),
);
const countAuthorRow = prepared((db, _: null, v: { accountId: string; at: Date }) =>
  db.updateTable("account_stats").set(countAuthor(v.at)).where("account_id", "=", v.accountId),
);
const countReplyRow = prepared((db, _: null, v: { statusId: string }) =>
  db.updateTable("status_stats").set(countReply).where("status_id", "=", v.statusId),
);

/**
 * Inserts a status in the caller's transaction; returns what to do once it commits (tell the
 * streams). Returns null, and writes nothing, when a status with its URI is stored already (a
 * redelivery, or another job storing the same object at once).
 */
export async function insertStatus(
  rt: Runtime,
  db: Db,
  s: ParsedStatus,
): Promise<{ afterCommit: () => Promise<void> } | null> {
  const now = new Date();
  const document = documentOf(s.spoilerText, s.content, s.poll?.options ?? []);
  const [inserted] = await insertStatusRow(db, rt.dialect, {
    id: s.id,
    uri: s.uri,
    url: s.url,
    account_id: s.accountId,
    local: s.local,
    visibility: s.visibility,
    text: s.text,
    content: s.content,
    spoiler_text: s.spoilerText,
    sensitive: s.sensitive,
    language: s.language,
    in_reply_to_id: s.parent?.id ?? null,
    in_reply_to_account_id: s.parent?.account_id ?? null,
    reblog_of_id: null,
    conversation_id: s.parent ? (s.parent.conversation_id ?? s.parent.id) : s.id,
    application_id: s.applicationId,
    created_at: s.createdAt,
    updated_at: now,
    edited_at: s.editedAt,
    deleted_at: null,
    quote_approval_policy: s.quoteApprovalPolicy ?? 0,
    document,
  });
  if (inserted && rt.dialect === "sqlite") {
    // SQLite has no data-modifying CTEs; its statements run in-process, with no round trip to save.
    await insertStatsRow(db, null, { statusId: s.id });
    await countAuthorRow(db, null, { accountId: s.accountId, at: now });
    if (s.parent) await countReplyRow(db, null, { statusId: s.parent.id });
    await indexNewStatus(db, rt.dialect, { id: s.id, document });
  }
  if (!inserted) return null;
  await addMentions(db, s.id, s.mentioned);
  await addTags(db, s.id, s.tags, now);
  if (s.poll) await createPoll(rt, db, s.id, s.accountId, s.poll, s.local);
  if (s.media.length > 0) await setStatusMedia(db, s.id, s.media, now);
  await addRemoteMedia(rt, db, s, now);
  const afterCommit = await statusPosted(rt, db, {
    id: s.id,
    accountId: s.accountId,
    local: s.local,
    mentioned: s.mentioned,
    visibility: s.visibility,
    tags: s.tags,
    content: s.content,
  });
  return { afterCommit };
}

/**
 * The rows of a remote status's attachments, in one statement, and the job that copies them into
 * our storage. A status older than the media cache keeps (a backfilled one) is left to be fetched
 * when its media are first asked for.
 */
async function addRemoteMedia(rt: Runtime, db: Db, s: ParsedStatus, at: Date): Promise<void> {
  if (s.remoteMedia.length === 0) return;
  const retentionDays = rt.config.media.cacheRetentionDays;
  const skipped = retentionDays !== null && at.getTime() - s.createdAt.getTime() > retentionDays * 86_400_000;
  await db
    .insertInto("media_attachments")
    .values(
      s.remoteMedia.map((m, position) => ({
        id: newId(),
        account_id: s.accountId,
        status_id: s.id,
        position,
        scheduled_status_id: null,
        type: m.type,
        processing: "done" as const,
        upload_key: null,
        file_key: null,
        preview_key: null,
        content_type: m.contentType,
        file_size: 0,
        meta: JSON.stringify(m.meta),
        description: m.description,
        blurhash: m.blurhash,
        remote_url: m.url,
        remote_state: skipped ? ("lazy" as const) : ("pending" as const),
        created_at: at,
        updated_at: at,
      })),
    )
    .execute();
  if (!skipped) await rt.queue.enqueue("media.cache", { statusId: s.id }, { maxAttempts: 3 }, db);
}

/** The options of a status's poll, or null without one: what a version of its history keeps of the poll. */
export async function pollOptions(db: Db, statusId: string): Promise<string[] | null> {
  const poll = await db.selectFrom("polls").select("options").where("status_id", "=", statusId).executeTakeFirst();
  return poll?.options ?? null;
}

/** A status as it read before an edit: what its history keeps of it. */
export type StatusVersion = Pick<
  Selectable<StatusesTable>,
  "id" | "account_id" | "text" | "content" | "spoiler_text" | "sensitive" | "language" | "created_at"
>;

/** What an edit makes of a status's text; its media and poll are the caller's (they differ by origin). */
export interface StatusEdit {
  text: string;
  content: string;
  spoilerText: string;
  sensitive: boolean;
  language: string | null;
  editedAt: Date;
  mentioned: string[];
  tags: string[];
  /** The media shown before and after, for the history; null where they are not tracked (remote). */
  mediaBefore: EditedMedia[] | null;
  mediaAfter: EditedMedia[] | null;
  /** The poll's options before the edit (read before the caller changed the poll), for the history. */
  pollBefore: string[] | null;
}

async function recordVersion(
  db: Db,
  statusId: string,
  accountId: string,
  v: Omit<StatusVersion, "id" | "account_id" | "created_at">,
  at: Date,
  media: EditedMedia[] | null,
  pollOptions: string[] | null,
): Promise<void> {
  await db
    .insertInto("status_edits")
    .values({
      id: newId(),
      status_id: statusId,
      account_id: accountId,
      text: v.text,
      content: v.content,
      spoiler_text: v.spoiler_text,
      sensitive: v.sensitive,
      language: v.language,
      media: media === null ? null : JSON.stringify(media),
      poll_options: pollOptions === null ? null : JSON.stringify(pollOptions),
      created_at: at,
    })
    .execute();
}

/**
 * Applies an edit in the caller's transaction: the history (the first edit also keeps the original,
 * so that it starts where the status did), the row, its mentions and hashtags, the search index and
 * the notifications that follow. Returns the accounts mentioned for the first time.
 */
export async function applyEdit(rt: Runtime, db: Db, before: StatusVersion, e: StatusEdit): Promise<string[]> {
  const now = new Date();
  const earlier = await db
    .selectFrom("status_edits")
    .select("id")
    .where("status_id", "=", before.id)
    .limit(1)
    .executeTakeFirst();
  if (!earlier) {
    await recordVersion(db, before.id, before.account_id, before, before.created_at, e.mediaBefore, e.pollBefore);
  }
  await db
    .updateTable("statuses")
    .set({
      text: e.text,
      content: e.content,
      spoiler_text: e.spoilerText,
      sensitive: e.sensitive,
      language: e.language,
      edited_at: e.editedAt,
      updated_at: now,
    })
    .where("id", "=", before.id)
    .execute();
  const after = { text: e.text, content: e.content, spoiler_text: e.spoilerText, sensitive: e.sensitive };
  const pollAfter = await pollOptions(db, before.id);
  await recordVersion(
    db,
    before.id,
    before.account_id,
    { ...after, language: e.language },
    e.editedAt,
    e.mediaAfter,
    pollAfter,
  );
  const newlyMentioned = await replaceMentions(db, before.id, e.mentioned);
  await replaceTags(db, before.id, e.tags, now);
  await statusEdited(rt, db, { id: before.id, accountId: before.account_id, newlyMentioned });
  return newlyMentioned;
}
