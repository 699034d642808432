// The Status entity, rendered in batches. What rarely changes (the row, mentions, tags, the app) is
// kept in memory per status; counters and the viewer's flags come fresh, in one query
// (services/live_state.ts), or with the page that listed the statuses.
import type { FilterContext } from "../db/schema.ts";
import { matchFilters } from "../domain/filters.ts";
import { htmlToPlainText } from "../domain/text/index.ts";
import { urls } from "../domain/urls.ts";
import type { Runtime } from "../runtime.ts";
import { activeFilters } from "../services/filters/active.ts";
import { loadMediaByStatus, type MediaRow } from "../services/media/rows.ts";
import { type LiveState, loadLiveState } from "../services/statuses/live_state.ts";
import { renderPolls } from "../services/statuses/polls.ts";
import { loadStatusRows, type StatusRow } from "../services/visibility/load.ts";
import { type AccountEntity, renderAccounts } from "./account.ts";
import { renderCaches } from "./cache.ts";
import { renderFilterResult } from "./filter.ts";
import { renderMedia } from "./media_attachment.ts";

export interface RenderOptions {
  viewerId: string | null;
  /** The filter context of the read path, for `filtered` (read paths leave out what `hide` filters match). */
  context?: FilterContext;
  /** Add the source `text` (the answer to a delete, for redrafting). */
  withSource?: boolean;
  /** Show deleted statuses too (to moderators, in the reports that cite them). */
  includeDeleted?: boolean;
  /** The live state of the statuses and of those they boost, when it was read with their page. */
  live?: LiveState | null;
}

export type StatusEntity = Record<string, unknown> & { id: string; reblog: StatusEntity | null };

interface Mention {
  id: string;
  username: string;
  url: string;
  acct: string;
}

/** What a status is made of, apart from its counters and the viewer's relation to it. */
interface StatusParts {
  row: StatusRow;
  mentions: Mention[];
  tags: { name: string; url: string }[];
  application: { name: string; website: string | null } | null;
  media: MediaRow[];
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function groupBy<T extends { status_id: string }>(items: T[]): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const item of items) {
    const list = map.get(item.status_id);
    if (list) list.push(item);
    else map.set(item.status_id, [item]);
  }
  return map;
}

async function loadParts(rt: Runtime, ids: string[]): Promise<StatusParts[]> {
  const db = rt.db;
  const rows = await loadStatusRows(db, ids);
  const found = [...rows.keys()];
  if (found.length === 0) return [];
  const u = urls(rt.config);
  const [mentions, tags, apps, media] = await Promise.all([
    db
      .selectFrom("status_mentions as m")
      .innerJoin("accounts as a", "a.id", "m.account_id")
      .select(["m.status_id", "a.id", "a.username", "a.domain", "a.url", "a.uri"])
      .where("m.status_id", "in", found)
      .where("m.silent", "=", false)
      .orderBy("m.id")
      .execute(),
    db
      .selectFrom("status_tags as st")
      .innerJoin("tags as t", "t.id", "st.tag_id")
      .select(["st.status_id", "t.name", "t.display_name"])
      .where("st.status_id", "in", found)
      .execute(),
    db
      .selectFrom("statuses as s")
      .innerJoin("oauth_applications as app", "app.id", "s.application_id")
      .select(["s.id as status_id", "app.name", "app.website"])
      .where("s.id", "in", found)
      .execute(),
    loadMediaByStatus(db, found),
  ]);
  const mentionsBy = groupBy(mentions);
  const tagsBy = groupBy(tags);
  const appBy = new Map(apps.map((a) => [a.status_id, { name: a.name, website: a.website }]));
  return [...rows.values()].map((row) => ({
    row,
    mentions: (mentionsBy.get(row.id) ?? []).map((m) => ({
      id: m.id,
      username: m.username,
      url: m.url ?? m.uri,
      acct: m.domain ? `${m.username}@${m.domain}` : m.username,
    })),
    tags: (tagsBy.get(row.id) ?? []).map((t) => ({ name: t.display_name, url: u.tagUrl(t.name) })),
    application: appBy.get(row.id) ?? null,
    media: media.get(row.id) ?? [],
  }));
}

/** Parts of the statuses, from memory where possible. */
async function statusParts(rt: Runtime, ids: readonly string[]): Promise<Map<string, StatusParts>> {
  const cache = renderCaches(rt).statuses;
  const out = new Map<string, StatusParts>();
  const missing: string[] = [];
  for (const id of new Set(ids)) {
    const hit = cache.get(id) as StatusParts | undefined;
    if (hit) out.set(id, hit);
    else missing.push(id);
  }
  for (const parts of await loadParts(rt, missing)) {
    cache.set(parts.row.id, parts);
    out.set(parts.row.id, parts);
  }
  return out;
}

/** Renders statuses by id, in the order given, leaving out those that do not exist. */
export async function renderStatuses(rt: Runtime, ids: readonly string[], o: RenderOptions): Promise<StatusEntity[]> {
  const parts = await statusParts(rt, ids);
  const originalIds = [...parts.values()].map((p) => p.row.reblog_of_id).filter((id): id is string => id !== null);
  const all = new Map([...parts, ...(originalIds.length > 0 ? await statusParts(rt, originalIds) : [])]);
  const allIds = [...all.keys()];
  if (allIds.length === 0) return [];

  const conversations = [
    ...new Set([...all.values()].map((p) => p.row.conversation_id).filter((c): c is string => c !== null)),
  ];
  const pollIds = [...all.values()].map((p) => p.row.poll_id).filter((id): id is string => id !== null);
  const authorIds = [...new Set([...all.values()].map((p) => p.row.account_id))];
  const [live, filters, polls] = await Promise.all([
    o.live ??
      loadLiveState(
        rt,
        allIds,
        authorIds,
        o.viewerId
          ? { id: o.viewerId, conversations, own: allIds.filter((id) => all.get(id)!.row.account_id === o.viewerId) }
          : null,
      ),
    o.viewerId && o.context ? activeFilters(rt, o.viewerId) : [],
    renderPolls(rt, pollIds, o.viewerId),
  ]);
  const { stats: statsById, flags } = live;
  const accounts = await renderAccounts(rt, authorIds, live.accounts);
  const accountById = new Map<string, AccountEntity>(accounts.map((a) => [a.id, a]));

  const render = (
    { row, mentions, tags, application, media }: StatusParts,
    reblog: StatusEntity | null,
  ): StatusEntity => {
    const s = statsById.get(row.id);
    const own = o.viewerId === row.account_id;
    const entity: StatusEntity = {
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
      application: own ? application : null,
      account: accountById.get(row.account_id) ?? null,
      media_attachments: media.map((m) => renderMedia(rt.config, m)),
      mentions,
      tags,
      emojis: [],
      card: null,
      poll: row.poll_id ? (polls.get(row.poll_id) ?? null) : null,
      quote: null,
    };
    if (flags) {
      entity.favourited = flags.favourited.has(row.id);
      entity.reblogged = flags.reblogged.has(row.id);
      entity.muted = row.conversation_id !== null && flags.muted.has(row.conversation_id);
      entity.bookmarked = flags.bookmarked.has(row.id);
      if (own) entity.pinned = flags.pinned.has(row.id);
      const subject = row.reblog_of_id ? (all.get(row.reblog_of_id)?.row ?? row) : row;
      entity.filtered =
        o.context && filters.length > 0
          ? matchFilters(filters, o.context, {
              id: subject.id,
              text: `${subject.spoiler_text}\n\n${htmlToPlainText(subject.content)}`,
            }).map(renderFilterResult)
          : [];
    }
    if (o.withSource) entity.text = row.text;
    return entity;
  };

  const out: StatusEntity[] = [];
  for (const id of ids) {
    const p = parts.get(id);
    // A deleted status shows only in the answer to its deletion, and to moderators.
    if (!p || (p.row.deleted_at && !o.withSource && !o.includeDeleted)) continue;
    const original = p.row.reblog_of_id ? all.get(p.row.reblog_of_id) : undefined;
    if (p.row.reblog_of_id && (!original || original.row.deleted_at)) continue;
    out.push(render(p, original ? render(original, null) : null));
  }
  return out;
}

export async function renderStatus(rt: Runtime, id: string, o: RenderOptions): Promise<StatusEntity> {
  const [entity] = await renderStatuses(rt, [id], o);
  if (!entity) throw new Error(`status ${id} vanished while rendering`);
  return entity;
}
