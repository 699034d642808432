// Reading statuses: several at once, a thread, and an account's statuses.
import { sql } from "kysely";
import { type Page, type PageResult, paginate } from "../../db/paginate.ts";
import { normalizeHashtag } from "../../domain/text/index.ts";
import type { Runtime } from "../../runtime.ts";
import { hiddenStatusIds, pageWithoutHidden } from "../filters/hidden.ts";
import { withMedia } from "../media/rows.ts";
import { hiddenAccountIds } from "../relationships/hidden_accounts.ts";
import { loadStatusRows, type StatusRow, visibleRows, visibleStatus } from "../visibility/load.ts";
import { viewerValue, visibleTo } from "../visibility/sql.ts";

/** The ones the viewer may see, in the order asked. */
export async function visibleIds(rt: Runtime, viewerId: string | null, ids: string[]): Promise<string[]> {
  const rows = await loadStatusRows(rt.db, ids);
  const ordered = ids.map((id) => rows.get(id)).filter((r): r is StatusRow => r !== undefined);
  return (await visibleRows(rt, viewerId, ordered)).map((r) => r.id);
}

const ANCESTORS = 40;
const DESCENDANTS = 4096;

/**
 * A thread around a status: its ancestors, oldest first, and every reply below it in reading order
 * (each reply followed by its own replies), as the viewer may see them.
 */
export async function threadContext(rt: Runtime, viewerId: string | null, id: string) {
  const status = await visibleStatus(rt, viewerId, id);
  const up = await sql<{ id: string }>`
    WITH RECURSIVE up(id, parent, depth) AS (
      SELECT id, in_reply_to_id, 0 FROM statuses WHERE id = ${status.id}
      UNION ALL
      SELECT s.id, s.in_reply_to_id, up.depth + 1 FROM statuses s JOIN up ON s.id = up.parent WHERE up.depth < ${ANCESTORS}
    )
    SELECT CAST(id AS TEXT) AS id FROM up WHERE id <> ${status.id} ORDER BY depth DESC`.execute(rt.db);
  const down = await sql<{ id: string }>`
    WITH RECURSIVE down(id, depth) AS (
      SELECT id, 1 FROM statuses WHERE in_reply_to_id = ${status.id} AND deleted_at IS NULL
      UNION ALL
      SELECT s.id, down.depth + 1 FROM statuses s JOIN down ON s.in_reply_to_id = down.id
      WHERE s.deleted_at IS NULL AND down.depth < 1000
    )
    SELECT CAST(id AS TEXT) AS id FROM down LIMIT ${DESCENDANTS}`.execute(rt.db);

  const hidden = viewerId
    ? new Set((await hiddenAccountIds(rt.db, viewerId).execute()).map((r) => r.account_id))
    : new Set<string>();
  const keep = async (ids: string[]) => {
    const rows = await loadStatusRows(rt.db, ids);
    const filtered = await hiddenStatusIds(rt, viewerId, "thread", ids);
    const present = ids
      .map((i) => rows.get(i))
      .filter((r): r is StatusRow => r !== undefined && !hidden.has(r.account_id) && !filtered.has(r.id));
    return visibleRows(rt, viewerId, present);
  };
  const ancestors = (await keep(up.rows.map((r) => String(r.id)))).map((r) => r.id);
  const replies = await keep(down.rows.map((r) => String(r.id)));

  // Reading order: depth first from the status, siblings oldest first.
  const children = new Map<string, StatusRow[]>();
  for (const r of replies) {
    const list = children.get(r.in_reply_to_id!) ?? [];
    list.push(r);
    children.set(r.in_reply_to_id!, list);
  }
  const descendants: string[] = [];
  const walk = (parent: string) => {
    for (const child of (children.get(parent) ?? []).sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1))) {
      descendants.push(child.id);
      walk(child.id);
    }
  };
  walk(status.id);
  return { ancestors, descendants };
}

export interface AccountStatusesQuery {
  excludeReblogs: boolean;
  excludeReplies: boolean;
  onlyMedia: boolean;
  tagged: string | null;
}

/** An account's statuses as the viewer may see them, newest first. */
export async function accountStatuses(
  rt: Runtime,
  viewerId: string | null,
  accountId: string,
  q: AccountStatusesQuery,
  page: Page,
): Promise<PageResult<string>> {
  const empty = { items: [], next: null, prev: null };
  const author = await rt.db
    .selectFrom("accounts")
    .select(["id", "suspended_at"])
    .where("id", "=", accountId)
    .executeTakeFirst();
  if (!author || author.suspended_at) return empty;
  let query = rt.db
    .selectFrom("statuses as s")
    .select("s.id")
    .where("s.account_id", "=", accountId)
    .where(visibleTo(viewerValue(viewerId), "s"));
  if (q.excludeReblogs) query = query.where("s.reblog_of_id", "is", null);
  if (q.onlyMedia) query = query.where(withMedia("s"));
  if (q.excludeReplies) {
    // A reply in one's own thread still counts as one's own post.
    query = query.where((eb) =>
      eb.or([eb("s.in_reply_to_id", "is", null), eb("s.in_reply_to_account_id", "=", accountId)]),
    );
  }
  if (q.tagged) {
    const name = normalizeHashtag(q.tagged);
    query = query.where("s.id", "in", (eb) =>
      eb
        .selectFrom("status_tags as st")
        .innerJoin("tags as t", "t.id", "st.tag_id")
        .select("st.status_id")
        .where("t.name", "=", name),
    );
  }
  const read = async (p: Page) => {
    const result = await paginate(query, "s.id", p);
    return { ...result, items: result.items.map((r) => r.id) };
  };
  const byId = (id: string) => id;
  return pageWithoutHidden(rt, viewerId, "account", page, read, byId, byId);
}

/** The account's pinned statuses, most recently pinned first. */
export async function pinnedStatuses(rt: Runtime, viewerId: string | null, accountId: string): Promise<string[]> {
  const pins = await rt.db
    .selectFrom("status_pins")
    .select("status_id")
    .where("account_id", "=", accountId)
    .orderBy("id", "desc")
    .execute();
  const ids = pins.map((p) => p.status_id);
  const hidden = await hiddenStatusIds(rt, viewerId, "account", ids);
  return visibleIds(
    rt,
    viewerId,
    ids.filter((id) => !hidden.has(id)),
  );
}
