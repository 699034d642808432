// Editing a status (PUT /api/v1/statuses/:id), its history and its source.
import type { EditedMedia } from "../../db/schema.ts";
import { notFound } from "../../domain/errors.ts";
import type { Runtime } from "../../runtime.ts";
import { publishEvent } from "../../streaming/events.ts";
import { userSettings } from "../accounts/preferences.ts";
import { federate } from "../federation/outbox.ts";
import { checkMedia, mediaSnapshot, setStatusMedia } from "../media/attach.ts";
import { checkDescription, parseFocus } from "../media/upload.ts";
import { type StatusRow, visibleStatus } from "../visibility/load.ts";
import { checkDraft, type Draft, renderDraft } from "./compose.ts";
import { checkPoll, createPoll, type NewPoll, newPollRecord } from "./polls.ts";
import { addQuote, quoteOfEdit, removeQuote } from "./quotes.ts";
import { applyEdit, pollOptions } from "./write.ts";

export interface StatusChanges extends Draft {
  sensitive?: boolean;
  /** A new poll replaces the old one, and its votes. */
  poll?: NewPoll;
  /** New descriptions and focus points of the status's media (Mastodon's `media_attributes[]`). */
  mediaAttributes?: { id: string; description?: string; focus?: string }[];
  /** The status to quote now; null (or "") takes the quote off; undefined leaves it. */
  quotedStatusId?: string | null;
}

/** One's own original status (not a boost), or 404. */
export async function ownStatus(rt: Runtime, accountId: string, id: string): Promise<StatusRow> {
  const row = await visibleStatus(rt, accountId, id);
  if (row.account_id !== accountId || row.reblog_of_id !== null) throw notFound();
  return row;
}

/** A status as it reads at `at`, as a row of its history (its media aside). */
function versionOf(row: StatusRow, id: string, at: Date) {
  return {
    id,
    status_id: row.id,
    account_id: row.account_id,
    text: row.text,
    content: row.content,
    spoiler_text: row.spoiler_text,
    sensitive: row.sensitive,
    language: row.language,
    created_at: at,
  };
}

/** What an edit makes of the status's media: the list named, with the descriptions and focus asked for. */
function editedMedia(rt: Runtime, media: Awaited<ReturnType<typeof checkMedia>>, c: StatusChanges): EditedMedia[] {
  const asked = new Map((c.mediaAttributes ?? []).map((a) => [a.id, a]));
  return media.map((m) => {
    const a = asked.get(m.id);
    const description = checkDescription(rt, a?.description);
    const focus = parseFocus(a?.focus);
    return {
      id: m.id,
      description: description === undefined ? m.description : description,
      focus: focus ?? m.meta.focus ?? null,
    };
  });
}

export async function editStatus(
  rt: Runtime,
  user: { id: string; accountId: string },
  id: string,
  c: StatusChanges,
): Promise<void> {
  const row = await ownStatus(rt, user.accountId, id);
  checkDraft(rt, c);
  const poll = c.poll ? checkPoll(rt, c.poll) : null;
  const media = await checkMedia(rt, { accountId: user.accountId, statusId: id }, c.mediaIds);
  const quote = await quoteOfEdit(rt, user.accountId, id, c.quotedStatusId);
  const mediaBefore = await mediaSnapshot(rt.db, id);
  const pollBefore = await pollOptions(rt.db, id);
  const mediaAfter = editedMedia(rt, media, c);
  const settings = await userSettings(rt, user.id);
  const rendered = await renderDraft(rt, c, row.language ?? settings.default_language ?? null);
  const sensitized = await rt.db
    .selectFrom("accounts")
    .select("sensitized_at")
    .where("id", "=", user.accountId)
    .executeTakeFirstOrThrow();
  const sensitive =
    c.spoilerText.trim() !== "" ||
    (mediaAfter.length > 0 && sensitized.sensitized_at !== null) ||
    (c.sensitive ?? row.sensitive);
  const unchanged =
    rendered.content === row.content &&
    c.spoilerText === row.spoiler_text &&
    sensitive === row.sensitive &&
    rendered.language === row.language &&
    JSON.stringify(mediaAfter) === JSON.stringify(mediaBefore);
  if (unchanged && !poll && quote === undefined) return;
  const now = new Date();
  await rt.db.transaction().execute(async (trx) => {
    // Media and poll first: the search index that applyEdit writes reads the poll's options.
    await setStatusMedia(trx, id, media, now);
    for (const m of mediaAfter) {
      const current = media.find((r) => r.id === m.id)!;
      if (m.description === current.description && m.focus === (current.meta.focus ?? null)) continue;
      const meta = { ...current.meta, ...(m.focus ? { focus: m.focus } : {}) };
      await trx
        .updateTable("media_attachments")
        .set({ description: m.description, meta: JSON.stringify(meta), updated_at: now })
        .where("id", "=", m.id)
        .execute();
    }
    if (quote !== undefined) {
      await removeQuote(trx, id);
      if (quote) await addQuote(rt, trx, { statusId: id, accountId: user.accountId, quoted: quote, now });
    }
    if (poll) {
      if (row.poll_id) await trx.deleteFrom("polls").where("id", "=", row.poll_id).execute();
      await createPoll(rt, trx, id, user.accountId, newPollRecord(poll, now), true);
    }
    const newlyMentioned = await applyEdit(rt, trx, row, {
      text: c.text,
      content: rendered.content,
      spoilerText: c.spoilerText,
      sensitive,
      language: rendered.language,
      editedAt: now,
      mentioned: rendered.mentions.map((m) => m.id),
      tags: rendered.tags,
      mediaBefore,
      mediaAfter,
      pollBefore,
    });
    await federate(rt, trx, user.accountId, { type: "Update", statusId: id }, newlyMentioned);
  });
  await publishEvent(rt, "statuses.changed", { ids: [id] });
  await publishEvent(rt, "statuses.edited", { id });
}

/** The versions of a status, oldest first; a status never edited has just its current one. */
export async function statusHistory(rt: Runtime, viewerId: string | null, id: string) {
  const row = await visibleStatus(rt, viewerId, id);
  const edits = await rt.db.selectFrom("status_edits").selectAll().where("status_id", "=", id).orderBy("id").execute();
  if (edits.length > 0) return { row, versions: edits };
  const [media, poll] = await Promise.all([mediaSnapshot(rt.db, id), pollOptions(rt.db, id)]);
  return {
    row,
    versions: [{ ...versionOf(row, row.id, row.created_at), media, poll_options: poll }],
  };
}
