// Hashtags featured on a profile: at most 10 per account, each with how many of the account's
// public and unlisted posts carry it.

import { sql } from "kysely";
import { lockRow } from "../../db/concurrency.ts";
import { notFound, unprocessable } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import { isValidHashtag } from "../../domain/text/index.ts";
import type { Runtime } from "../../runtime.ts";
import { findOrCreateTag, type Tag } from "../statuses/tags.ts";
import { visibleTo } from "../visibility/sql.ts";

const LIMIT = 10;
/** Suggestions come from the tags of this many of the account's latest posts, as in Mastodon. */
const RECENT_STATUSES = 1000;

export interface FeaturedTag {
  id: string;
  /** As the person wrote it. */
  name: string;
  /** The tag's normalized name. */
  tagName: string;
  username: string;
  statusesCount: number;
  lastStatusAt: Date | null;
}

/** The account's featured tags, the most used first. */
export async function featuredTagsOf(rt: Runtime, accountId: string): Promise<FeaturedTag[]> {
  const rows = await rt.db
    .selectFrom("featured_tags as f")
    .innerJoin("tags as t", "t.id", "f.tag_id")
    .innerJoin("accounts as a", "a.id", "f.account_id")
    .leftJoin(
      (db) =>
        db
          .selectFrom("status_tags as st")
          .innerJoin("statuses as s", "s.id", "st.status_id")
          .select(["st.tag_id", sql<number>`count(*)`.as("n"), sql<Date>`max(s.created_at)`.as("last")])
          .where("s.account_id", "=", accountId)
          // Counted as anyone may see them.
          .where(visibleTo(null, "s"))
          .groupBy("st.tag_id")
          .as("used"),
      (j) => j.onRef("used.tag_id", "=", "f.tag_id"),
    )
    .select(["f.id", "f.name", "t.name as tag_name", "a.username", "used.n", "used.last"])
    .where("f.account_id", "=", accountId)
    .execute();
  return rows
    .map((r) => ({
      id: r.id,
      name: r.name,
      tagName: r.tag_name,
      username: r.username,
      statusesCount: Number(r.n ?? 0),
      // max() of a timestamp comes back as text on SQLite.
      lastStatusAt: r.last ? new Date(r.last) : null,
    }))
    .sort((a, b) => b.statusesCount - a.statusesCount || a.id.localeCompare(b.id));
}

/** Features a tag by name; featuring one already featured answers the existing one. */
export async function featureTag(rt: Runtime, accountId: string, rawName: string): Promise<FeaturedTag> {
  const name = rawName.trim().replace(/^#/, "");
  if (name === "") throw unprocessable("Validation failed: Name can't be blank");
  if (!isValidHashtag(name)) throw unprocessable("Validation failed: Name is invalid");
  const tag = await findOrCreateTag(rt, name);
  await rt.db.transaction().execute(async (trx) => {
    // Tags featured at once by one account are counted one after the other, so that the limit holds.
    await lockRow(trx, rt.dialect, "accounts", accountId);
    const existing = await trx
      .selectFrom("featured_tags")
      .select("id")
      .where("account_id", "=", accountId)
      .where("tag_id", "=", tag.id)
      .executeTakeFirst();
    if (existing) return;
    const count = await trx
      .selectFrom("featured_tags")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("account_id", "=", accountId)
      .executeTakeFirstOrThrow();
    if (Number(count.n) >= LIMIT) {
      throw unprocessable("Validation failed: You have already featured the maximum number of hashtags");
    }
    await trx
      .insertInto("featured_tags")
      .values({ id: newId(), account_id: accountId, tag_id: tag.id, name, created_at: new Date() })
      .onConflict((oc) => oc.columns(["account_id", "tag_id"]).doNothing())
      .execute();
  });
  const featured = (await featuredTagsOf(rt, accountId)).find((f) => f.tagName === tag.name);
  // Only a removal racing this request leaves nothing to show.
  if (!featured) throw notFound();
  return featured;
}

/** DELETE /api/v1/featured_tags/:id: 404 unless it is the caller's. */
export async function unfeatureTagById(rt: Runtime, accountId: string, id: string): Promise<void> {
  const result = await rt.db
    .deleteFrom("featured_tags")
    .where("id", "=", id)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) throw notFound();
}

/** POST /api/v1/tags/:name/unfeature: no error when it was not featured. */
export async function unfeatureTag(rt: Runtime, accountId: string, name: string): Promise<Tag> {
  const tag = await findOrCreateTag(rt, name);
  await rt.db.deleteFrom("featured_tags").where("account_id", "=", accountId).where("tag_id", "=", tag.id).execute();
  return tag;
}

/** Which of these tags the viewer features (the Tag entity's `featuring`). */
export async function featuredTagIds(rt: Runtime, viewerId: string | null, tagIds: string[]): Promise<Set<string>> {
  if (!viewerId || tagIds.length === 0) return new Set();
  const rows = await rt.db
    .selectFrom("featured_tags")
    .select("tag_id")
    .where("account_id", "=", viewerId)
    .where("tag_id", "in", tagIds)
    .execute();
  return new Set(rows.map((r) => r.tag_id));
}

/** Up to 10 tags of the account's latest posts, the most used first, not featured yet. */
export async function featuredTagSuggestions(rt: Runtime, accountId: string): Promise<Tag[]> {
  const recent = rt.db
    .selectFrom("statuses")
    .select("id")
    .where("account_id", "=", accountId)
    .where("deleted_at", "is", null)
    .orderBy("id", "desc")
    .limit(RECENT_STATUSES);
  return rt.db
    .selectFrom("tags as t")
    .innerJoin("status_tags as st", "st.tag_id", "t.id")
    .selectAll("t")
    .where("st.status_id", "in", recent)
    .where("t.id", "not in", rt.db.selectFrom("featured_tags").select("tag_id").where("account_id", "=", accountId))
    .groupBy(["t.id", "t.name", "t.display_name", "t.last_status_at", "t.created_at"])
    .orderBy(sql`count(*)`, "desc")
    .orderBy("t.id", "desc")
    .limit(LIMIT)
    .execute();
}
