// Reading media rows: one's own (to edit, attach or delete), and a page of statuses' media in one query.
import { type Selectable, sql } from "kysely";
import type { Db } from "../../db/index.ts";
import type { MediaAttachmentsTable } from "../../db/schema.ts";
import { notFound } from "../../domain/errors.ts";
import { isId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";

export type MediaRow = Selectable<MediaAttachmentsTable>;

/**
 * The caller's own media attachment, or 404: nobody else sees an upload through the media API, and
 * (as on Mastodon) `unattached` leaves out what a status uses: that is read and edited with the status.
 */
export async function ownMedia(
  rt: Runtime,
  accountId: string,
  id: string,
  options: { unattached?: boolean } = {},
): Promise<MediaRow> {
  let query = rt.db
    .selectFrom("media_attachments")
    .selectAll()
    .where("id", "=", id)
    .where("account_id", "=", accountId);
  if (options.unattached) query = query.where("status_id", "is", null);
  const row = await query.executeTakeFirst();
  if (!row) throw notFound();
  return row;
}

/** The current media of each status, in their order. */
export async function loadMediaByStatus(db: Db, statusIds: readonly string[]): Promise<Map<string, MediaRow[]>> {
  const out = new Map<string, MediaRow[]>();
  if (statusIds.length === 0) return out;
  const rows = await db
    .selectFrom("media_attachments")
    .selectAll()
    .where("status_id", "in", [...new Set(statusIds)])
    .where("position", "is not", null)
    .orderBy("position")
    .execute();
  for (const row of rows) {
    const list = out.get(row.status_id!);
    if (list) list.push(row);
    else out.set(row.status_id!, [row]);
  }
  return out;
}

/** Media by id, in the order given, leaving out those that do not exist. */
export async function loadMediaByIds(db: Db, ids: readonly string[]): Promise<MediaRow[]> {
  // What is no id names no media (and must not reach a bigint column).
  const valid = [...new Set(ids)].filter(isId);
  if (valid.length === 0) return [];
  const rows = await db.selectFrom("media_attachments").selectAll().where("id", "in", valid).execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => byId.get(id)).filter((r): r is MediaRow => r !== undefined);
}

/** A condition for status queries: the status (aliased `alias`) has media (`only_media`). */
export function withMedia(alias: string) {
  return sql<boolean>`exists (select 1 from media_attachments om where om.status_id = ${sql.ref(`${alias}.id`)} and om.position is not null)`;
}
