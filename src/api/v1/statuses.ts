import { z } from "zod";
import { unprocessable } from "../../domain/errors.ts";
import { WORD_MAX } from "../../domain/lengths.ts";
import { params, router, sendJson } from "../../http/hono.ts";
import { parse, pathId, zBool, zFlag, zIds, zInt, zRef, zString, zStrings, zText } from "../../http/validate.ts";
import { jsonBytes } from "../../serializers/json_text.ts";
import { renderMedia } from "../../serializers/media_attachment.ts";
import { renderStatus, statusesJson, statusJson, writeStatuses } from "../../serializers/status.ts";
import { refreshHeader } from "../../services/async_refreshes.ts";
import { loadMediaByIds } from "../../services/media/rows.ts";
import { deleteStatus } from "../../services/statuses/delete.ts";
import { editStatus, ownStatus, statusHistory } from "../../services/statuses/edit.ts";
import type { NewPoll } from "../../services/statuses/polls.ts";
import { postStatus } from "../../services/statuses/post.ts";
import { quotePolicyOf } from "../../services/statuses/quotes.ts";
import { threadContext, visibleIds } from "../../services/statuses/read.ts";
import { refreshReplies } from "../../services/statuses/remote_replies.ts";
import { scheduleStatus } from "../../services/statuses/scheduled.ts";
import { loadStatusView, loadStatusViews } from "../../services/statuses/views.ts";
import { visibleStatus } from "../../services/visibility/load.ts";
import { accountEntities } from "../account_pages.ts";
import { currentUser, requireUser, tokenIfGiven, viewerId } from "../auth.ts";
import { renderScheduledList } from "./scheduled_statuses.ts";

export const statuses = router();

const draftSchema = z.object({
  status: zString(),
  spoiler_text: zString(),
  sensitive: zBool(),
  language: zText(WORD_MAX),
  media_ids: zStrings(),
  visibility: zText(WORD_MAX),
  in_reply_to_id: zRef(),
  quoted_status_id: zRef(),
  quote_approval_policy: zText(WORD_MAX),
  poll: z.preprocess(
    (v) => (v !== null && typeof v === "object" && !Array.isArray(v) ? v : undefined),
    z
      .object({
        options: zStrings(),
        expires_in: zInt(),
        multiple: zFlag(),
        hide_totals: zFlag(),
      })
      .optional(),
  ),
  scheduled_at: zText(WORD_MAX),
  // `media_attributes[][id]=…` arrives as a list; `media_attributes[0][id]=…` as an object by index.
  media_attributes: z.preprocess(
    (v) => (v !== null && typeof v === "object" && !Array.isArray(v) ? Object.values(v) : v),
    z.array(z.object({ id: zString(WORD_MAX), description: zString(), focus: zString(WORD_MAX) })).optional(),
  ),
});

function pollOf(p: z.output<typeof draftSchema>): NewPoll | undefined {
  if (!p.poll) return undefined;
  return {
    options: p.poll.options ?? [],
    expiresIn: p.poll.expires_in ?? 0,
    multiple: p.poll.multiple,
    hideTotals: p.poll.hide_totals,
  };
}

function draftOf(p: z.output<typeof draftSchema>) {
  return {
    text: (p.status ?? "").trim(),
    spoilerText: (p.spoiler_text ?? "").trim(),
    language: p.language ?? null,
    mediaIds: p.media_ids ?? [],
    sensitive: p.sensitive,
  };
}

statuses.post("/api/v1/statuses", requireUser("write:statuses"), async (c) => {
  const p = parse(draftSchema, await params(c));
  const user = currentUser(c);
  const idempotencyKey = c.req.header("idempotency-key")?.slice(0, 200);
  if (p.scheduled_at !== undefined) {
    const draft = draftOf(p);
    const poll = pollOf(p);
    const scheduled = await scheduleStatus(c.get("rt"), user, new Date(p.scheduled_at), {
      text: draft.text,
      spoiler_text: draft.spoilerText,
      sensitive: draft.sensitive ?? null,
      visibility: p.visibility ?? null,
      language: draft.language,
      in_reply_to_id: p.in_reply_to_id ?? null,
      media_ids: draft.mediaIds,
      poll: poll
        ? { options: poll.options, expires_in: poll.expiresIn, multiple: poll.multiple, hide_totals: poll.hideTotals }
        : null,
      application_id: c.get("auth")!.applicationId,
      idempotency: idempotencyKey ?? null,
      quoted_status_id: p.quoted_status_id ?? null,
      quote_approval_policy: p.quote_approval_policy ? quotePolicyOf(p.quote_approval_policy) : null,
    });
    return c.json((await renderScheduledList(c.get("rt"), [scheduled]))[0]);
  }
  const id = await postStatus(
    c.get("rt"),
    { userId: user.id, accountId: user.accountId, applicationId: c.get("auth")!.applicationId },
    {
      ...draftOf(p),
      visibility: p.visibility,
      inReplyToId: p.in_reply_to_id,
      idempotencyKey,
      poll: pollOf(p),
      quotedStatusId: p.quoted_status_id,
      quotePolicy: p.quote_approval_policy ? quotePolicyOf(p.quote_approval_policy) : undefined,
    },
  );
  return sendJson(c, statusJson(c.get("rt"), await loadStatusView(c.get("rt"), user.accountId, id)));
});

statuses.get("/api/v1/statuses", tokenIfGiven("read:statuses"), async (c) => {
  const p = parse(z.object({ id: zIds() }), await params(c));
  const ids = [...new Set(p.id ?? [])];
  if (ids.length > 40) throw unprocessable("Validation failed: too many ids (at most 40)");
  const viewer = viewerId(c);
  const views = await loadStatusViews(c.get("rt"), viewer, await visibleIds(c.get("rt"), viewer, ids));
  return sendJson(c, statusesJson(c.get("rt"), views));
});

statuses.get("/api/v1/statuses/:id", tokenIfGiven("read:statuses"), async (c) => {
  const viewer = viewerId(c);
  const row = await visibleStatus(c.get("rt"), viewer, pathId(c.req.param("id")));
  return sendJson(c, statusJson(c.get("rt"), await loadStatusView(c.get("rt"), viewer, row.id, { context: "thread" })));
});

statuses.get("/api/v1/statuses/:id/context", tokenIfGiven("read:statuses"), async (c) => {
  const viewer = viewerId(c);
  const id = pathId(c.req.param("id"));
  const { ancestors, descendants } = await threadContext(c.get("rt"), viewer, id);
  // Another server's thread: its replies this server lacks are fetched after this answer.
  const refresh = await refreshReplies(c.get("rt"), viewer, id);
  if (refresh) c.header("Mastodon-Async-Refresh", refreshHeader(refresh));
  const load = (ids: string[]) => loadStatusViews(c.get("rt"), viewer, ids, { context: "thread" });
  const [before, after] = await Promise.all([load(ancestors), load(descendants)]);
  return sendJson(
    c,
    jsonBytes((out) => {
      out.text('{"ancestors":');
      writeStatuses(c.get("rt"), out, before);
      out.text(',"descendants":');
      writeStatuses(c.get("rt"), out, after);
      out.text("}");
    }),
  );
});

statuses.put("/api/v1/statuses/:id", requireUser("write:statuses"), async (c) => {
  const raw = await params(c);
  const p = parse(draftSchema, raw);
  const user = currentUser(c);
  const id = pathId(c.req.param("id"));
  await editStatus(c.get("rt"), user, id, {
    ...draftOf(p),
    poll: pollOf(p),
    mediaAttributes: p.media_attributes?.flatMap((a) => (a.id ? [{ ...a, id: a.id }] : [])),
    // Present and empty, it takes the quote off; absent, it leaves it.
    quotedStatusId: "quoted_status_id" in raw ? (p.quoted_status_id ?? null) : undefined,
  });
  return sendJson(c, statusJson(c.get("rt"), await loadStatusView(c.get("rt"), user.accountId, id)));
});

statuses.delete("/api/v1/statuses/:id", requireUser("write:statuses"), async (c) => {
  const user = currentUser(c);
  const id = pathId(c.req.param("id"));
  await ownStatus(c.get("rt"), user.accountId, id);
  // Rendered before it goes, with its source, so that apps can offer to redraft it.
  const view = await loadStatusView(c.get("rt"), user.accountId, id, { includeDeleted: true });
  const entity = renderStatus(c.get("rt"), view, { withSource: true });
  const p = parse(z.object({ delete_media: zBool() }), await params(c));
  await deleteStatus(c.get("rt"), user.accountId, id, { deleteMedia: p.delete_media });
  return c.json(entity);
});

statuses.get("/api/v1/statuses/:id/history", tokenIfGiven("read:statuses"), async (c) => {
  const { row, versions } = await statusHistory(c.get("rt"), viewerId(c), pathId(c.req.param("id")));
  const [account] = await accountEntities(c.get("rt"), [row.account_id]);
  const media = await loadMediaByIds(
    c.get("rt").db,
    versions.flatMap((v) => (v.media ?? []).map((m) => m.id)),
  );
  const mediaById = new Map(media.map((m) => [m.id, m]));
  return c.json(
    versions.map((v) => ({
      content: v.content,
      spoiler_text: v.spoiler_text,
      sensitive: v.sensitive,
      created_at: v.created_at.toISOString(),
      account,
      // The poll's options as the version showed them (Mastodon's StatusEdit keeps no counts).
      poll: v.poll_options ? { options: v.poll_options.map((title) => ({ title })) } : null,
      media_attachments: (v.media ?? []).flatMap((m) => {
        const row = mediaById.get(m.id);
        return row ? [renderMedia(c.get("rt").config, row, m)] : [];
      }),
      emojis: [],
    })),
  );
});

statuses.get("/api/v1/statuses/:id/source", requireUser("read:statuses"), async (c) => {
  const row = await visibleStatus(c.get("rt"), currentUser(c).accountId, pathId(c.req.param("id")));
  return c.json({ id: row.id, text: row.text, spoiler_text: row.spoiler_text });
});
