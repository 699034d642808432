// Everything a page of statuses needs to be rendered for one viewer, loaded in batches: a query per
// kind of thing, never one per status. The serializer (src/serializers/status.ts) only renders it.
//
// A view keeps apart what every viewer sees alike (`shared`, the author, the counts) from what only
// this viewer sees (`viewer`, and a poll's own votes): streaming renders a status once for all its
// readers and adds each reader's part on its own. To add a part, write a loader that takes status
// ids and returns a Map by status id, call it in `loadShared` (if it is the same for every viewer,
// and so kept in memory until the status changes) or in `loadStatusViews`, and give it a field.
import type { Db } from "../../db/index.ts";
import type { FilterContext } from "../../db/schema.ts";
import { type FilterMatch, matchFilters } from "../../domain/filters.ts";
import { htmlToPlainText } from "../../domain/text/index.ts";
import { urls } from "../../domain/urls.ts";
import type { Runtime } from "../../runtime.ts";
import { type AccountView, loadAccountViews } from "../accounts/views.ts";
import { type CardView, cardAuthors, loadCards, type StatusCard, withAuthor } from "../cards/views.ts";
import { type CustomEmoji, emojisIn, localEmojis } from "../emojis/custom_emojis.ts";
import { type RemoteEmoji, remoteEmojisUsed } from "../emojis/remote_emojis.ts";
import { activeFilters } from "../filters/active.ts";
import { loadMediaByStatus, type MediaRow } from "../media/rows.ts";
import { throughCache, viewCaches } from "../view_caches.ts";
import { loadStatusRows, type StatusRow } from "../visibility/load.ts";
import { type LiveState, loadLiveState, type StatusCounters } from "./live_state.ts";
import { loadPollViews, type PollView } from "./polls.ts";
import { loadQuoting, type QuotingView } from "./quote_views.ts";

export interface MentionView {
  id: string;
  username: string;
  url: string;
  acct: string;
}

export interface TagRef {
  name: string;
  url: string;
}

export interface ApplicationRef {
  name: string;
  website: string | null;
}

/** What a status is made of for everyone, apart from its counts: kept in memory per status. */
export interface StatusShared {
  row: StatusRow;
  mentions: MentionView[];
  tags: TagRef[];
  application: ApplicationRef | null;
  /** Its media attachments, in order. */
  media: MediaRow[];
  /** Its link's preview card. */
  card: StatusCard | null;
}

/** The viewer's relation to a status. */
export interface ViewerState {
  /** The viewer's id: what is theirs (the app they posted with, their pins) shows only to them. */
  id: string;
  favourited: boolean;
  reblogged: boolean;
  bookmarked: boolean;
  muted: boolean;
  pinned: boolean;
  /** The viewer's filters (of the read path's context) that match the status, or what it boosts. */
  filtered: FilterMatch[];
}

export interface StatusView {
  shared: StatusShared;
  account: AccountView | null;
  counts: StatusCounters | null;
  poll: PollView | null;
  /** The boosted status, for a boost. */
  reblog: StatusView | null;
  /** Null for an anonymous viewer. */
  viewer: ViewerState | null;
  /** The custom emojis its text and content warning use. */
  emojis: (CustomEmoji | RemoteEmoji)[];
  card: CardView | null;
  /** Its quote (with the quoted status's view, unless it is one itself), who may quote it, and how many did. */
  quoting: QuotingView<StatusView> | null;
}

export interface LoadOptions {
  /** The filter context of the read path, for `filtered` (read paths leave out what `hide` filters match). */
  context?: FilterContext;
  /** Keep deleted statuses (for moderators, in the reports that cite them, and the answer to a delete). */
  includeDeleted?: boolean;
  /** The live state of the statuses and of those they boost, when it was read with their page. */
  live?: LiveState | null;
  /** Views of quoted statuses: their own quotes nest no further (Mastodon's ShallowQuote). */
  shallowQuotes?: boolean;
}

function groupBy<T extends { status_id: string }, U>(items: T[], map: (item: T) => U): Map<string, U[]> {
  const out = new Map<string, U[]>();
  for (const item of items) {
    const list = out.get(item.status_id);
    if (list) list.push(map(item));
    else out.set(item.status_id, [map(item)]);
  }
  return out;
}

/** The accounts each status mentions (silent mentions left out), in the order they were written. */
async function loadMentions(db: Db, ids: string[]): Promise<Map<string, MentionView[]>> {
  const rows = await db
    .selectFrom("status_mentions as m")
    .innerJoin("accounts as a", "a.id", "m.account_id")
    .select(["m.status_id", "a.id", "a.username", "a.domain", "a.url", "a.uri"])
    .where("m.status_id", "in", ids)
    .where("m.silent", "=", false)
    .orderBy("m.id")
    .execute();
  return groupBy(rows, (m) => ({
    id: m.id,
    username: m.username,
    url: m.url ?? m.uri,
    acct: m.domain ? `${m.username}@${m.domain}` : m.username,
  }));
}

async function loadTags(rt: Runtime, ids: string[]): Promise<Map<string, TagRef[]>> {
  const u = urls(rt.config);
  const rows = await rt.db
    .selectFrom("status_tags as st")
    .innerJoin("tags as t", "t.id", "st.tag_id")
    .select(["st.status_id", "t.name", "t.display_name"])
    .where("st.status_id", "in", ids)
    .execute();
  return groupBy(rows, (t) => ({ name: t.display_name, url: u.tagUrl(t.name) }));
}

/** The app each status was posted with. */
async function loadApplications(db: Db, ids: string[]): Promise<Map<string, ApplicationRef>> {
  const rows = await db
    .selectFrom("statuses as s")
    .innerJoin("oauth_applications as app", "app.id", "s.application_id")
    .select(["s.id as status_id", "app.name", "app.website"])
    .where("s.id", "in", ids)
    .execute();
  return new Map(rows.map((a) => [a.status_id, { name: a.name, website: a.website }]));
}

async function loadSharedFromDb(rt: Runtime, ids: string[]): Promise<Map<string, StatusShared>> {
  const rows = await loadStatusRows(rt.db, ids);
  const found = [...rows.keys()];
  if (found.length === 0) return new Map();
  const [mentions, tags, apps, media, cards] = await Promise.all([
    loadMentions(rt.db, found),
    loadTags(rt, found),
    loadApplications(rt.db, found),
    loadMediaByStatus(rt.db, found),
    loadCards(rt.db, found),
  ]);
  const shared = (row: StatusRow): StatusShared => ({
    row,
    mentions: mentions.get(row.id) ?? [],
    tags: tags.get(row.id) ?? [],
    application: apps.get(row.id) ?? null,
    media: media.get(row.id) ?? [],
    card: cards.get(row.id) ?? null,
  });
  return new Map([...rows].map(([id, row]) => [id, shared(row)]));
}

/** The shared parts of statuses, from memory where possible. */
const loadShared = (rt: Runtime, ids: readonly string[]) =>
  throughCache(viewCaches(rt).statuses, ids, (missing) => loadSharedFromDb(rt, missing));

/**
 * Views of statuses by id, in the order given, for `viewerId`. Left out: statuses that do not
 * exist, deleted ones (unless `includeDeleted`), and boosts of statuses that are gone. This does not
 * decide visibility: the read paths pass only what the viewer may see.
 */
export async function loadStatusViews(
  rt: Runtime,
  viewerId: string | null,
  ids: readonly string[],
  o: LoadOptions = {},
): Promise<StatusView[]> {
  const listed = await loadShared(rt, ids);
  const originalIds = [...listed.values()].map((p) => p.row.reblog_of_id).filter((id): id is string => id !== null);
  const all = new Map([...listed, ...(originalIds.length > 0 ? await loadShared(rt, originalIds) : [])]);
  const allIds = [...all.keys()];
  if (allIds.length === 0) return [];

  const rows = [...all.values()].map((p) => p.row);
  const conversations = [...new Set(rows.map((r) => r.conversation_id).filter((c): c is string => c !== null))];
  const pollIds = rows.map((r) => r.poll_id).filter((id): id is string => id !== null);
  const authorIds = [...new Set(rows.map((r) => r.account_id))];
  const [live, filters, polls, emojis] = await Promise.all([
    o.live ??
      loadLiveState(
        rt,
        allIds,
        authorIds,
        viewerId
          ? { id: viewerId, conversations, own: rows.filter((r) => r.account_id === viewerId).map((r) => r.id) }
          : null,
      ),
    viewerId && o.context ? activeFilters(rt, viewerId) : [],
    loadPollViews(rt, pollIds, viewerId),
    localEmojis(rt),
  ]);
  const accounts = await loadAccountViews(rt, authorIds, live.accounts);
  const authorsOfCards = await cardAuthors(
    rt,
    [...all.values()].flatMap((p) => p.card ?? []),
  );
  const domainOf = (row: { account_id: string }) => accounts.get(row.account_id)?.row.domain ?? null;
  const remoteEmojis = await remoteEmojisUsed(
    rt.db,
    rows.filter((r) => !r.local).map((r) => ({ domain: domainOf(r), texts: [r.spoiler_text, r.content] })),
  );
  const { flags } = live;
  const quoting = await loadQuoting<StatusView>(
    rt,
    viewerId,
    rows,
    o.shallowQuotes
      ? null
      : async (ids) =>
          new Map((await loadStatusViews(rt, viewerId, ids, { shallowQuotes: true })).map((v) => [v.shared.row.id, v])),
  );

  const view = (shared: StatusShared, reblog: StatusView | null): StatusView => {
    const { row } = shared;
    let viewer: ViewerState | null = null;
    if (viewerId && flags) {
      const subject = reblog?.shared.row ?? row;
      viewer = {
        id: viewerId,
        favourited: flags.favourited.has(row.id),
        reblogged: flags.reblogged.has(row.id),
        bookmarked: flags.bookmarked.has(row.id),
        muted: row.conversation_id !== null && flags.muted.has(row.conversation_id),
        pinned: flags.pinned.has(row.id),
        filtered:
          o.context && filters.length > 0
            ? matchFilters(filters, o.context, {
                id: subject.id,
                text: `${subject.spoiler_text}\n\n${htmlToPlainText(subject.content)}`,
              })
            : [],
      };
    }
    return {
      shared,
      account: accounts.get(row.account_id) ?? null,
      counts: live.stats.get(row.id) ?? null,
      poll: row.poll_id ? (polls.get(row.poll_id) ?? null) : null,
      reblog,
      viewer,
      emojis: row.local
        ? emojisIn(emojis, row.spoiler_text, row.content)
        : emojisIn(remoteEmojis.get(domainOf(row) ?? ""), row.spoiler_text, row.content),
      card: shared.card && withAuthor(shared.card, authorsOfCards),
      quoting: quoting.get(row.id) ?? null,
    };
  };

  const out: StatusView[] = [];
  for (const id of ids) {
    const p = listed.get(id);
    if (!p || (p.row.deleted_at && !o.includeDeleted)) continue;
    const original = p.row.reblog_of_id ? all.get(p.row.reblog_of_id) : undefined;
    if (p.row.reblog_of_id && (!original || original.row.deleted_at)) continue;
    out.push(view(p, original ? view(original, null) : null));
  }
  return out;
}

/** One status, which the caller knows exists. */
export async function loadStatusView(
  rt: Runtime,
  viewerId: string | null,
  id: string,
  o: LoadOptions = {},
): Promise<StatusView> {
  const [view] = await loadStatusViews(rt, viewerId, [id], o);
  if (!view) throw new Error(`status ${id} vanished while loading`);
  return view;
}
