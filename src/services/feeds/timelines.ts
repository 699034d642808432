// Reading timelines: home and list feeds from their materialised entries (querying statuses past a
// trimmed feed's horizon), and the public and hashtag timelines straight from statuses.
import { type RawBuilder, sql } from "kysely";
import { cutPage, type Page, type PageResult, pagePlan, paginate } from "../../db/paginate.ts";
import { normalizeHashtag } from "../../domain/text/index.ts";
import type { Runtime } from "../../runtime.ts";
import { pageWithoutHidden } from "../filters/hidden.ts";
import { withMedia } from "../media/rows.ts";
import { type LiveState, loadFeedPage } from "../statuses/live_state.ts";
import { notMuted, viewerValue, visibleTo } from "../visibility/sql.ts";
import { ownList } from "./lists.ts";
import { homeCandidates, listCandidates } from "./maintenance.ts";

type Older = (below: string, limit: number) => Promise<{ id: string }[]>;

/** A page of a feed, with the live state of its statuses when it was read along with them. */
export interface FeedPage extends PageResult<string> {
  live: LiveState | null;
}

/**
 * A page of a feed, with the live state of its statuses where the same query reads it (every home
 * timeline request reads one); past the feed's horizon, `older` supplies what the trimmed entries held.
 */
async function feedPage(rt: Runtime, feedId: string, ownerId: string, page: Page, older: Older): Promise<FeedPage> {
  const read = await loadFeedPage(rt, feedId, pagePlan(page), ownerId);
  const result = cutPage(read.ids, page, (id) => id);
  const ids = result.items;
  if (ids.length === page.limit || page.minId || page.sinceId) return { ...result, live: read.live };
  const { horizon } = read;
  if (!horizon) return { ...result, live: read.live };
  const last = ids.at(-1) ?? page.maxId;
  const below = last && BigInt(last) < BigInt(horizon) ? last : horizon;
  const rest = await older(below, page.limit - ids.length + 1);
  const more = rest.length > page.limit - ids.length;
  const all = [...ids, ...rest.slice(0, page.limit - ids.length).map((r) => r.id)];
  if (all.length === 0) return { items: [], next: null, prev: null, live: null };
  // The statuses from before the horizon were not in the feed's query: their state is read with them.
  return { items: all, next: more ? all[all.length - 1] : null, prev: all[0], live: null };
}

/**
 * A feed page without what the owner's `hide` filters leave out (filters of the home context apply
 * to lists too, as in Mastodon). The live state read with a page goes with that page alone.
 */
async function unhiddenFeedPage(rt: Runtime, feedId: string, ownerId: string, page: Page, older: Older) {
  let first: FeedPage | null = null;
  const read = async (p: Page) => {
    const result = await feedPage(rt, feedId, ownerId, p, older);
    first ??= result;
    return result;
  };
  const result = await pageWithoutHidden(rt, ownerId, "home", page, read, byId, byId);
  return { ...result, live: result === first ? (first as FeedPage).live : null };
}

const byId = (id: string) => id;

export function homeTimeline(rt: Runtime, viewerId: string, page: Page): Promise<FeedPage> {
  return unhiddenFeedPage(
    rt,
    viewerId,
    viewerId,
    page,
    async (below, limit) => (await homeCandidates(rt, rt.db, viewerId, limit, below)).rows,
  );
}

export async function listTimeline(rt: Runtime, viewerId: string, listId: string, page: Page): Promise<FeedPage> {
  const list = await ownList(rt.db, viewerId, listId);
  return unhiddenFeedPage(
    rt,
    list.id,
    viewerId,
    page,
    async (below, limit) => (await listCandidates(rt.db, list, limit, below)).rows,
  );
}

export interface PublicQuery {
  local: boolean;
  remote: boolean;
  onlyMedia: boolean;
}

type Viewer = RawBuilder<unknown> | null;

/**
 * Statuses of the public timelines: public originals the viewer may see, leaving out silenced
 * authors and those the viewer mutes. `viewer` is an expression (see visibility/sql.ts).
 */
function publicStatuses(rt: Runtime, viewer: Viewer, q: PublicQuery) {
  let query = rt.db
    .selectFrom("statuses as s")
    .innerJoin("accounts as a", "a.id", "s.account_id")
    .select("s.id")
    .where("s.visibility", "=", "public")
    .where("s.reblog_of_id", "is", null)
    .where("a.silenced_at", "is", null)
    .where(visibleTo(viewer, "s"));
  if (viewer) query = query.where(notMuted(viewer, sql.ref("s.account_id")));
  if (q.local) query = query.where("s.local", "=", true);
  if (q.remote) query = query.where("s.local", "=", false);
  if (q.onlyMedia) query = query.where(withMedia("s"));
  return query;
}

/** The public timeline's statuses: replies to others stay in their threads. */
function publicTimelineStatuses(rt: Runtime, viewer: Viewer, q: PublicQuery) {
  return publicStatuses(rt, viewer, q).where((eb) =>
    eb.or([eb("s.in_reply_to_id", "is", null), eb("s.in_reply_to_account_id", "=", eb.ref("s.account_id"))]),
  );
}

export async function publicTimeline(
  rt: Runtime,
  viewerId: string | null,
  q: PublicQuery,
  page: Page,
): Promise<PageResult<string>> {
  return publicPage(rt, viewerId, publicTimelineStatuses(rt, viewerValue(viewerId), q), page);
}

/** A page of a public timeline's query, without what the viewer's `hide` filters leave out. */
function publicPage(
  rt: Runtime,
  viewerId: string | null,
  query: ReturnType<typeof publicStatuses>,
  page: Page,
): Promise<PageResult<string>> {
  const read = async (p: Page) => {
    const result = await paginate(query, "s.id", p);
    return { ...result, items: result.items.map((r) => r.id) };
  };
  return pageWithoutHidden(rt, viewerId, "public", page, read, byId, byId);
}

/** The public statuses that link a card (GET /api/v1/timelines/link). */
export function linkTimeline(
  rt: Runtime,
  viewerId: string | null,
  q: PublicQuery & { cardId: string },
  page: Page,
): Promise<PageResult<string>> {
  const linking = rt.db
    .selectFrom("preview_cards_statuses")
    .select("status_id")
    .where("preview_card_id", "=", q.cardId);
  return publicPage(rt, viewerId, publicStatuses(rt, viewerValue(viewerId), q).where("s.id", "in", linking), page);
}

export interface TagQuery extends PublicQuery {
  tag: string;
  any: string[];
  all: string[];
  none: string[];
}

const tagKey = (names: string[]) => [...new Set(names.map(normalizeHashtag).filter(Boolean))];

export async function tagTimeline(
  rt: Runtime,
  viewerId: string | null,
  q: TagQuery,
  page: Page,
): Promise<PageResult<string>> {
  // A name that cannot be a tag names no tag, whose timeline Mastodon answers as empty.
  if (tagKey([q.tag]).length === 0) return { items: [], next: null, prev: null };
  return publicPage(rt, viewerId, tagStatuses(rt, viewerValue(viewerId), q), page);
}

function tagStatuses(rt: Runtime, viewer: Viewer, q: TagQuery) {
  const key = tagKey;
  const anyOf = key([q.tag, ...q.any]);
  const tagged = (names: string[]) =>
    rt.db
      .selectFrom("status_tags as st")
      .innerJoin("tags as t", "t.id", "st.tag_id")
      .select("st.status_id")
      .where("t.name", "in", names);
  let query = publicStatuses(rt, viewer, q).where("s.id", "in", tagged(anyOf));
  for (const name of key(q.all)) query = query.where("s.id", "in", tagged([name]));
  const none = key(q.none);
  if (none.length > 0) query = query.where("s.id", "not in", tagged(none));
  return query;
}

/**
 * Of these viewers (null: a reader without an account), those whose public timeline `q` (or, with
 * `tag`, that hashtag's timeline) holds status `id`: what the streams of those timelines check, by
 * the timelines' own query, for all viewers at once. `hide` filters are the caller's to apply.
 */
export async function publicTimelineReaders(
  rt: Runtime,
  id: string,
  viewers: (string | null)[],
  q: PublicQuery,
  tag: string | null,
): Promise<Set<string | null>> {
  const query = (viewer: Viewer) =>
    (tag === null
      ? publicTimelineStatuses(rt, viewer, q)
      : tagStatuses(rt, viewer, { ...q, tag, any: [], all: [], none: [] })
    ).where("s.id", "=", id);
  const readers = new Set<string | null>();
  if (viewers.includes(null) && (await query(null).executeTakeFirst())) readers.add(null);
  const ids = viewers.filter((v): v is string => v !== null);
  if (ids.length === 0) return readers;
  const rows = await rt.db
    .selectFrom("accounts as reader")
    .select("reader.id")
    .where("reader.id", "in", ids)
    .where(({ exists }) => exists(query(sql.ref("reader.id"))))
    .execute();
  for (const r of rows) readers.add(r.id);
  return readers;
}
