// Loading what the visibility rule (rule.ts) needs for a batch of statuses, one query per relation
// kind, and deciding with it: for single statuses and the short lists decided in memory.
import type { Selectable } from "kysely";
import type { Db } from "../../db/index.ts";
import type { StatusesTable } from "../../db/schema.ts";
import { notFound } from "../../domain/errors.ts";
import type { Runtime } from "../../runtime.ts";
import { ANONYMOUS, canSeeWithBoost, type Viewer, type VisibleStatus } from "./rule.ts";

export type StatusRow = Selectable<StatusesTable> & { author_domain: string | null; author_suspended: boolean };

/** Status rows with what visibility needs of their authors. */
export function statusQuery(db: Db) {
  return db
    .selectFrom("statuses as s")
    .innerJoin("accounts as a", "a.id", "s.account_id")
    .selectAll("s")
    .select((eb) => ["a.domain as author_domain", eb("a.suspended_at", "is not", null).as("author_suspended")]);
}

/** A row of statusQuery as a StatusRow: SQLite reports the computed flag as a number. */
export function toStatusRow<T extends { author_suspended: unknown }>(r: T): T & { author_suspended: boolean } {
  return { ...r, author_suspended: Boolean(r.author_suspended) };
}

export async function loadStatusRows(db: Db, ids: readonly string[]): Promise<Map<string, StatusRow>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await statusQuery(db).where("s.id", "in", unique).execute();
  return new Map(rows.map((r) => [r.id, toStatusRow(r)]));
}

/** The viewer's relations to the authors of `statuses`. */
export async function viewerFor(
  rt: Runtime,
  viewerId: string | null,
  statuses: readonly VisibleStatus[],
): Promise<Viewer> {
  if (viewerId === null) return ANONYMOUS;
  const authors = [...new Set(statuses.map((s) => s.account_id).filter((id) => id !== viewerId))];
  const restricted = statuses.filter((s) => s.visibility === "private" || s.visibility === "direct").map((s) => s.id);
  const db = rt.db;
  const [following, blocks, domains, mentions] = await Promise.all([
    authors.length === 0
      ? []
      : db
          .selectFrom("follows")
          .select("target_account_id as id")
          .where("account_id", "=", viewerId)
          .where("target_account_id", "in", authors)
          .execute(),
    authors.length === 0
      ? []
      : db
          .selectFrom("blocks")
          .select("target_account_id as id")
          .where("account_id", "=", viewerId)
          .where("target_account_id", "in", authors)
          .union(
            db
              .selectFrom("blocks")
              .select("account_id as id")
              .where("target_account_id", "=", viewerId)
              .where("account_id", "in", authors),
          )
          .execute(),
    db.selectFrom("account_domain_blocks").select("domain").where("account_id", "=", viewerId).execute(),
    restricted.length === 0
      ? []
      : db
          .selectFrom("status_mentions")
          .select("status_id")
          .where("account_id", "=", viewerId)
          .where("status_id", "in", restricted)
          .execute(),
  ]);
  return {
    id: viewerId,
    following: new Set(following.map((r) => r.id)),
    blocked: new Set(blocks.map((r) => r.id)),
    blockedDomains: new Set(domains.map((r) => r.domain)),
    mentionedIn: new Set(mentions.map((r) => r.status_id)),
  };
}

/**
 * The statuses of `rows` the viewer may see, in order. A boost is visible when both the boost and
 * the boosted status are.
 */
export async function visibleRows(rt: Runtime, viewerId: string | null, rows: StatusRow[]): Promise<StatusRow[]> {
  const originals = await loadStatusRows(
    rt.db,
    rows.map((r) => r.reblog_of_id).filter((id): id is string => id !== null),
  );
  const viewer = await viewerFor(rt, viewerId, [...rows, ...originals.values()]);
  return rows.filter((r) => canSeeWithBoost(r, r.reblog_of_id ? originals.get(r.reblog_of_id) : undefined, viewer));
}

/** A status the viewer may see, or 404 — whether it exists or not. */
export async function visibleStatus(rt: Runtime, viewerId: string | null, id: string): Promise<StatusRow> {
  const row = (await loadStatusRows(rt.db, [id])).get(id);
  if (!row || (await visibleRows(rt, viewerId, [row])).length === 0) throw notFound();
  return row;
}
