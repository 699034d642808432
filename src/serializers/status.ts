// The Status entity, rendered from the views src/services/statuses/views.ts loads. What a status
// shows everyone and changes only with the status (`shape` with the values of `changing` left as
// holes) is kept as a template per status, so that a page is written as JSON text by filling in its
// counts, nested entities and the viewer's part (`statusJson`); `renderStatus` builds the same
// entity as an object, for the pages and entities that hold one.
import type { Runtime } from "../runtime.ts";
import type { AccountView } from "../services/accounts/views.ts";
import type { StatusShared, StatusView, ViewerState } from "../services/statuses/views.ts";
import { renderAccountView, writeAccount } from "./account.ts";
import { renderCustomEmojis } from "./custom_emoji.ts";
import { renderFilterResult } from "./filter.ts";
import {
  fill,
  holes,
  type JsonOut,
  jsonBytes,
  jsonText,
  makeTemplate,
  type Template,
  Writer,
  writeArray,
} from "./json_text.ts";
import { renderMedia } from "./media_attachment.ts";
import { renderPoll } from "./poll.ts";
import { type CardView, renderCard } from "./preview_card.ts";

export type StatusEntity = Record<string, unknown> & { id: string; reblog: StatusEntity | null };

export interface RenderOptions {
  /** Add the source `text` (the answer to a delete, for redrafting). */
  withSource?: boolean;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The values of the entity that change without the status changing. */
const CHANGING = [
  "replies_count",
  "reblogs_count",
  "favourites_count",
  "reblog",
  "application",
  "account",
  "emojis",
  "poll",
  "card",
  "quotes_count",
  "quote",
  "quote_approval",
] as const;
type Changing = Record<(typeof CHANGING)[number], unknown>;

/** The entity in Mastodon's field order (the viewer's part aside): the status's own values, and `d`. */
function shape(rt: Runtime, { row, mentions, tags, media }: StatusShared, d: Changing): StatusEntity {
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
    replies_count: d.replies_count,
    reblogs_count: d.reblogs_count,
    favourites_count: d.favourites_count,
    quotes_count: d.quotes_count,
    edited_at: iso(row.edited_at),
    content: row.content,
    reblog: d.reblog as StatusEntity | null,
    application: d.application,
    account: d.account,
    media_attachments: media.map((m) => renderMedia(rt.config, m)),
    mentions,
    tags,
    emojis: d.emojis,
    card: d.card,
    poll: d.poll,
    quote: d.quote,
    quote_approval: d.quote_approval,
  };
}

/** The changing values of `view`, its boost and author rendered by `nest`. */
function changing(rt: Runtime, view: StatusView, nest: Nest): Changing {
  const s = view.counts;
  // The app a status was posted with shows only to its author.
  const own = view.viewer !== null && view.viewer.id === view.shared.row.account_id;
  return {
    replies_count: s?.replies_count ?? 0,
    reblogs_count: s?.reblogs_count ?? 0,
    favourites_count: s?.favourites_count ?? 0,
    reblog: view.reblog ? nest.status(rt, view.reblog) : null,
    application: own ? view.shared.application : null,
    account: view.account ? nest.account(rt, view.account) : null,
    emojis: renderCustomEmojis(rt.config, view.emojis),
    // The poll shows the viewer's votes.
    poll: view.poll ? renderPoll(view.poll) : null,
    card: view.card ? nest.card(rt, view.card) : null,
    quotes_count: view.quoting?.quotesCount ?? 0,
    quote: view.quoting?.quote ? nest.quote(rt, view) : null,
    quote_approval: view.quoting?.approval ?? null,
  };
}

interface Nest {
  status: (rt: Runtime, v: StatusView) => unknown;
  account: (rt: Runtime, v: AccountView) => unknown;
  card: (rt: Runtime, v: CardView) => unknown;
  quote: (rt: Runtime, v: StatusView) => unknown;
}

/** The Quote entity, with the quoted status rendered by `nest`; a ShallowQuote within a quoted status. */
function renderQuote(rt: Runtime, view: StatusView, nest: Nest) {
  const quote = view.quoting?.quote;
  if (!quote) return null;
  if (quote.shallow) return { state: quote.state, quoted_status_id: quote.quotedId };
  return { state: quote.state, quoted_status: quote.quoted ? nest.status(rt, quote.quoted) : null };
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

/** Nested entities as objects, for renderStatus. */
const asObjects: Nest = {
  status: (rt: Runtime, v: StatusView) => renderStatus(rt, v),
  account: renderAccountView,
  quote: (rt: Runtime, v: StatusView) => renderQuote(rt, v, asObjects),
  card: (rt: Runtime, v: CardView) => renderCard(rt.config, v, (a) => renderAccountView(rt, a)),
};

export function renderStatus(rt: Runtime, view: StatusView, o: RenderOptions = {}): StatusEntity {
  const entity = shape(rt, view.shared, changing(rt, view, asObjects));
  if (view.viewer) Object.assign(entity, viewerFields(view.viewer, view.shared.row.account_id));
  if (o.withSource) entity.text = view.shared.row.text;
  return entity;
}

export function renderStatuses(rt: Runtime, views: readonly StatusView[]): StatusEntity[] {
  return views.map((view) => renderStatus(rt, view));
}

/** Templates by status: a status's shared part is replaced, not changed, when the status changes. */
const templates = new WeakMap<StatusShared, Template>();
const HOLES = holes(CHANGING);

/** Nested entities as writers of their JSON, for writeStatus. */
const asWriters: Nest = {
  status: (rt: Runtime, v: StatusView) => new Writer(writeStatus, rt, v),
  account: (rt: Runtime, v: AccountView) => new Writer(writeAccount, rt, v),
  card: (rt: Runtime, v: CardView) => new Writer(writeCard, rt, v),
  // The Quote object around a status written from its template.
  quote: (rt: Runtime, v: StatusView) =>
    new Writer((r: Runtime, out: JsonOut, view: StatusView) => out.compose(renderQuote(r, view, asWriters)), rt, v),
};

/** A card as JSON, its author's account written from its template. */
function writeCard(rt: Runtime, out: JsonOut, v: CardView): void {
  out.compose(renderCard(rt.config, v, (a) => new Writer(writeAccount, rt, a)));
}

/** Writes the entity renderStatus makes, as JSON. */
export function writeStatus(rt: Runtime, out: JsonOut, view: StatusView): void {
  let template = templates.get(view.shared);
  if (!template) {
    template = makeTemplate(shape(rt, view.shared, HOLES));
    templates.set(view.shared, template);
  }
  fill(
    out,
    template,
    changing(rt, view, asWriters),
    view.viewer ? viewerJson(view.viewer, view.shared.row.account_id) : "",
  );
}

/** The viewer's members as JSON, with a leading comma; without filters, one of a few texts, kept. */
const viewerTexts: string[] = [];
function viewerJson(v: ViewerState, authorId: string): string {
  const members = () => `,${JSON.stringify(viewerFields(v, authorId)).slice(1, -1)}`;
  if (v.filtered.length > 0) return members();
  const own = v.id === authorId;
  const key =
    +v.favourited |
    (+v.reblogged << 1) |
    (+v.muted << 2) |
    (+v.bookmarked << 3) |
    (+own << 4) |
    (+(own && v.pinned) << 5);
  viewerTexts[key] ??= members();
  return viewerTexts[key];
}

/** Writes renderStatuses' array, as JSON. */
export function writeStatuses(rt: Runtime, out: JsonOut, views: readonly StatusView[]): void {
  writeArray(out, views, (o, view) => writeStatus(rt, o, view));
}

/** renderStatus as JSON bytes. */
export const statusJson = (rt: Runtime, view: StatusView): Buffer<ArrayBuffer> =>
  jsonBytes((out) => writeStatus(rt, out, view));

/** renderStatus as JSON text. */
export const statusText = (rt: Runtime, view: StatusView): string => jsonText((out) => writeStatus(rt, out, view));

/** renderStatuses as JSON bytes. */
export const statusesJson = (rt: Runtime, views: readonly StatusView[]): Buffer<ArrayBuffer> =>
  jsonBytes((out) => writeStatuses(rt, out, views));
