// Hashtags: their use over the last week, and following them.
import type { Selectable } from "kysely";
import { type Page, type PageResult, paginate } from "../../db/paginate.ts";
import type { TagsTable } from "../../db/schema.ts";
import { notFound } from "../../domain/errors.ts";
import { idFloor, idTime, newId } from "../../domain/ids.ts";
import { isValidHashtag, normalizeHashtag } from "../../domain/text/index.ts";
import type { Runtime } from "../../runtime.ts";
import { visibleTo } from "../visibility/sql.ts";

export type Tag = Selectable<TagsTable>;

const DAY = 86_400_000;

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

export interface TagDay {
  day: string;
  uses: string;
  accounts: string;
}

/** Uses and distinct authors per day for the last 7 days, today first, as strings (Mastodon's TagHistory). */
export async function tagHistory(rt: Runtime, tagIds: string[]): Promise<Map<string, TagDay[]>> {
  const today = Math.floor(Date.now() / DAY) * DAY;
  const since = new Date(today - 6 * DAY);
  const rows =
    tagIds.length === 0
      ? []
      : await rt.db
          .selectFrom("status_tags as st")
          .innerJoin("statuses as s", "s.id", "st.status_id")
          .select(["st.tag_id", "s.id", "s.account_id"])
          .where("st.tag_id", "in", tagIds)
          .where("s.id", ">=", idFloor(since))
          // Counted as anyone may see them.
          .where(visibleTo(null, "s"))
          .execute();
  const out = new Map<string, TagDay[]>();
  for (const tagId of tagIds) {
    const days = Array.from({ length: 7 }, (_, i) => ({ day: today - i * DAY, uses: 0, accounts: new Set<string>() }));
    for (const r of rows) {
      if (r.tag_id !== tagId) continue;
      const day = days[Math.floor((today - Math.floor(idTime(r.id).getTime() / DAY) * DAY) / DAY)];
      if (!day) continue;
      day.uses++;
      day.accounts.add(r.account_id);
    }
    out.set(
      tagId,
      days.map((d) => ({ day: String(d.day / 1000), uses: String(d.uses), accounts: String(d.accounts.size) })),
    );
  }
  return out;
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
