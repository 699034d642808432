// The Status entity, rendered from the views src/services/statuses/views.ts loads. What every viewer
// sees alike (`renderShared`) is rendered apart from what only the viewer sees (`viewerFields`), so
// that a status can be rendered once for many viewers.
import type { Runtime } from "../runtime.ts";
import type { StatusView, ViewerState } from "../services/statuses/views.ts";
import { type AccountEntity, renderAccountView } from "./account.ts";
import { renderFilterResult } from "./filter.ts";
import { renderMedia } from "./media_attachment.ts";
import { renderPoll } from "./poll.ts";

export type StatusEntity = Record<string, unknown> & { id: string; reblog: StatusEntity | null };

export interface RenderOptions {
  /** Add the source `text` (the answer to a delete, for redrafting). */
  withSource?: boolean;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The entity as everyone sees it (the poll aside, which shows the viewer's votes). */
function renderShared(rt: Runtime, view: StatusView, reblog: StatusEntity | null): StatusEntity {
  const { row, mentions, tags, application, media } = view.shared;
  const s = view.counts;
  const own = view.viewer !== null && view.viewer.id === row.account_id;
  const account: AccountEntity | null = view.account ? renderAccountView(rt, view.account) : null;
  return {
    id: row.id,
    created_at: row.created_at.toISOString(),
    in_reply_to_id: row.in_reply_to_id,
    in_reply_to_account_id: row.in_reply_to_account_id,
    sensitive: row.sensitive,
    spoiler_text: row.spoiler_text,
    visibility: row.visibility,
    language: row.language,
    uri: row.uri,
    url: row.url,
    replies_count: s?.replies_count ?? 0,
    reblogs_count: s?.reblogs_count ?? 0,
    favourites_count: s?.favourites_count ?? 0,
    quotes_count: 0,
    edited_at: iso(row.edited_at),
    content: row.content,
    reblog,
    // The app a status was posted with shows only to its author.
    application: own ? application : null,
    account,
    media_attachments: media.map((m) => renderMedia(rt.config, m)),
    mentions,
    tags,
    emojis: [],
    card: null,
    poll: view.poll ? renderPoll(view.poll) : null,
    quote: null,
  };
}

/** What only the viewer sees. */
function viewerFields(v: ViewerState, authorId: string) {
  return {
    favourited: v.favourited,
    reblogged: v.reblogged,
    muted: v.muted,
    bookmarked: v.bookmarked,
    ...(v.id === authorId ? { pinned: v.pinned } : {}),
    filtered: v.filtered.map(renderFilterResult),
  };
}

export function renderStatus(rt: Runtime, view: StatusView, o: RenderOptions = {}): StatusEntity {
  const reblog = view.reblog ? renderStatus(rt, view.reblog) : null;
  const entity = renderShared(rt, view, reblog);
  if (view.viewer) Object.assign(entity, viewerFields(view.viewer, view.shared.row.account_id));
  if (o.withSource) entity.text = view.shared.row.text;
  return entity;
}

export function renderStatuses(rt: Runtime, views: readonly StatusView[]): StatusEntity[] {
  return views.map((view) => renderStatus(rt, view));
}
