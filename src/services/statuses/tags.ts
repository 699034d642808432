// Hashtags: their use over the last week, and following them.
import type { Selectable } from "kysely";
import { type Page, type PageResult, paginate } from "../../db/paginate.ts";
import type { TagsTable } from "../../db/schema.ts";
import { notFound } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import { isValidHashtag, normalizeHashtag } from "../../domain/text/index.ts";
import type { Runtime } from "../../runtime.ts";
import { type HistoryDay, historyFloor, weekHistory } from "../trends/history.ts";
import { visibleTo } from "../visibility/sql.ts";

export type Tag = Selectable<TagsTable>;

/** The tag named so (in any case, width or with a leading "#"), made on first use; 404 for invalid names. */
export async function findOrCreateTag(rt: Runtime, name: string): Promise<Tag> {
  const display = name.replace(/^[#＃]/u, "");
  if (!isValidHashtag(display)) throw notFound();
  const key = normalizeHashtag(display);
  await rt.db
    .insertInto("tags")
    .values({ id: newId(), name: key, display_name: display, last_status_at: null, created_at: new Date() })
    .onConflict((oc) => oc.column("name").doNothing())
    .execute();
  return rt.db.selectFrom("tags").selectAll().where("name", "=", key).executeTakeFirstOrThrow();
}

export type TagDay = HistoryDay;

/** Uses and distinct authors per day for the last 7 days (Mastodon's TagHistory). */
export async function tagHistory(rt: Runtime, tagIds: string[]): Promise<Map<string, TagDay[]>> {
  const rows =
    tagIds.length === 0
      ? []
      : await rt.db
          .selectFrom("status_tags as st")
          .innerJoin("statuses as s", "s.id", "st.status_id")
          .select(["st.tag_id as key", "s.id", "s.account_id"])
          .where("st.tag_id", "in", tagIds)
          .where("s.id", ">=", historyFloor())
          // Counted as anyone may see them.
          .where(visibleTo(null, "s"))
          .execute();
  return weekHistory(tagIds, rows);
}

export async function followedTagIds(rt: Runtime, viewerId: string | null, tagIds: string[]): Promise<Set<string>> {
  if (!viewerId || tagIds.length === 0) return new Set();
  const rows = await rt.db
    .selectFrom("tag_follows")
    .select("tag_id")
    .where("account_id", "=", viewerId)
    .where("tag_id", "in", tagIds)
    .execute();
  return new Set(rows.map((r) => r.tag_id));
}

export async function followTag(rt: Runtime, viewerId: string, name: string): Promise<Tag> {
  const tag = await findOrCreateTag(rt, name);
  await rt.db
    .insertInto("tag_follows")
    .values({ id: newId(), account_id: viewerId, tag_id: tag.id, created_at: new Date() })
    .onConflict((oc) => oc.columns(["account_id", "tag_id"]).doNothing())
    .execute();
  return tag;
}

export async function unfollowTag(rt: Runtime, viewerId: string, name: string): Promise<Tag> {
  const tag = await findOrCreateTag(rt, name);
  await rt.db.deleteFrom("tag_follows").where("account_id", "=", viewerId).where("tag_id", "=", tag.id).execute();
  return tag;
}

export async function followedTags(
  rt: Runtime,
  viewerId: string,
  page: Page,
): Promise<PageResult<Tag & { follow_id: string }>> {
  const q = rt.db
    .selectFrom("tag_follows as f")
    .innerJoin("tags as t", "t.id", "f.tag_id")
    .selectAll("t")
    .select("f.id as follow_id")
    .where("f.account_id", "=", viewerId);
  return paginate(q, "f.id", page, (r) => r.follow_id);
}
