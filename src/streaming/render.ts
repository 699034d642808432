// A status as each listening viewer's REST answer would render it, rendered once per distinct viewer
// state rather than once per viewer: a status's entity differs between viewers only by their own
// flags (favourited, reblogged, bookmarked, muted thread, pinned), their poll votes, their filters,
// authorship, and what its quote shows them (quote_viewers.ts). Viewers with none of those (most of
// them, for a status just posted) share one rendering; the others are rendered one by one.
import type { FilterContext } from "../db/schema.ts";
import type { Runtime } from "../runtime.ts";
import { statusText } from "../serializers/status.ts";
import { hiddenStatusIds } from "../services/filters/hidden.ts";
import { loadStatusViews } from "../services/statuses/views.ts";
import { loadStatusRows } from "../services/visibility/load.ts";
import { quoteViewers } from "./quote_viewers.ts";

type Viewer = string | null;

/**
 * The viewers among `viewerIds` whose rendering of these statuses is their own. Favourites,
 * bookmarks, pins, boosts and votes are looked up by status (few for a status just posted, and one
 * statement text whatever the number of viewers), and kept for the viewers here.
 */
async function viewersWithState(rt: Runtime, statusIds: string[], viewerIds: string[]): Promise<Set<string>> {
  const rows = await loadStatusRows(rt.db, statusIds);
  const viewers = new Set(viewerIds);
  const special = new Set<string>();
  const note = (accountId: string) => {
    if (viewers.has(accountId)) special.add(accountId);
  };
  for (const row of rows.values()) note(row.account_id);
  const conversations = [...rows.values()].flatMap((r) => (r.conversation_id ? [r.conversation_id] : []));
  const polls = [...rows.values()].flatMap((r) => (r.poll_id ? [r.poll_id] : []));
  const db = rt.db;
  const byStatus = (table: "favourites" | "bookmarks" | "status_pins") =>
    db.selectFrom(table).select("account_id").where("status_id", "in", statusIds).execute();
  const [ofStatuses, byViewer] = await Promise.all([
    Promise.all([
      byStatus("favourites"),
      byStatus("bookmarks"),
      byStatus("status_pins"),
      db
        .selectFrom("statuses")
        .select("account_id")
        .where("reblog_of_id", "in", statusIds)
        .where("deleted_at", "is", null)
        .execute(),
      polls.length === 0
        ? []
        : db.selectFrom("poll_votes").select("account_id").where("poll_id", "in", polls).execute(),
    ]),
    // Mutes of a conversation and filters are found by their owner.
    Promise.all([
      conversations.length === 0
        ? []
        : db
            .selectFrom("conversation_mutes")
            .select("account_id")
            .where("conversation_id", "in", conversations)
            .where("account_id", "in", viewerIds)
            .execute(),
      db.selectFrom("filters").select("account_id").distinct().where("account_id", "in", viewerIds).execute(),
    ]),
  ]);
  for (const found of [...ofStatuses, ...byViewer]) for (const r of found) note(r.account_id);
  return special;
}

/**
 * Status `id` as JSON for each viewer, as their REST timeline of `context` renders it; null for
 * viewers whose `hide` filters leave it out there (as the timeline does), or when it is gone.
 */
export async function renderForViewers(
  rt: Runtime,
  id: string,
  viewers: Viewer[],
  context: FilterContext,
): Promise<Map<Viewer, string | null>> {
  const out = new Map<Viewer, string | null>();
  const distinct = [...new Set(viewers)];
  const [row] = (await loadStatusRows(rt.db, [id])).values();
  if (!row) {
    for (const v of distinct) out.set(v, null);
    return out;
  }
  const statusIds = row.reblog_of_id ? [id, row.reblog_of_id] : [id];
  const accounts = distinct.filter((v): v is string => v !== null);
  const special = new Set<string>();
  if (accounts.length > 0) {
    const rows = row.reblog_of_id ? [...(await loadStatusRows(rt.db, statusIds)).values()] : [row];
    const quotes = await quoteViewers(rt, rows, accounts);
    const withState = await viewersWithState(rt, [...statusIds, ...quotes.quotedIds], accounts);
    for (const v of [...quotes.special, ...withState]) special.add(v);
  }

  const render = async (viewerId: Viewer) => {
    const [view] = await loadStatusViews(rt, viewerId, [id], { context });
    return view ? statusText(rt, view) : null;
  };
  const plain = accounts.filter((v) => !special.has(v));
  if (plain.length > 0) {
    // Plain viewers have no filters (hence none that hide), and share the first one's rendering.
    const json = await render(plain[0]);
    for (const v of plain) out.set(v, json);
  }
  if (distinct.includes(null)) out.set(null, await render(null));
  for (const v of special) {
    const hidden = await hiddenStatusIds(rt, v, context, [id]);
    out.set(v, hidden.has(id) ? null : await render(v));
  }
  return out;
}
