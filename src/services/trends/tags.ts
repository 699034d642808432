// Trending hashtags (GET /api/v1/trends/tags): the tags of public statuses of the last week, each
// scored by the distinct accounts that used it, an account counting less the longer ago it last
// did (its weight halves every HALF_LIFE), as Mastodon scores recent use by distinct accounts and
// lets it decay. Only tags an operator allowed trend publicly (`rookery trends allow`); the others
// wait for review (`rookery trends review`).
import { idFloor, idTime } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import type { Tag } from "../statuses/tags.ts";
import { findOrCreateTag } from "../statuses/tags.ts";
import { visibleTo } from "../visibility/sql.ts";

const WINDOW_MS = 7 * 86_400_000;
const HALF_LIFE_MS = 86_400_000;

export interface TagTrend {
  tag: Tag;
  score: number;
  accounts: number;
}

/**
 * Tags used in the window, best first: those allowed to trend, those awaiting review, or both
 * (what moderators review). Tags staff made unlisted or unusable do not trend: Mastodon's
 * Trends::Tags counts no use of a tag that is not usable.
 */
async function scoredTags(rt: Runtime, which: "allowed" | "pending" | "both"): Promise<TagTrend[]> {
  const now = Date.now();
  let q = rt.db
    .selectFrom("status_tags as st")
    .innerJoin("statuses as s", "s.id", "st.status_id")
    .innerJoin("tags as t", "t.id", "st.tag_id")
    .select(["st.tag_id", "s.account_id", (eb) => eb.fn.max("s.id").as("last_id")])
    .where("s.id", ">", idFloor(new Date(now - WINDOW_MS)))
    .where("s.visibility", "=", "public")
    .where(visibleTo(null, "s"))
    .groupBy(["st.tag_id", "s.account_id"]);
  q = q.where((eb) => eb.or([eb("t.listable", "is", null), eb("t.listable", "=", true)]));
  q = q.where((eb) => eb.or([eb("t.usable", "is", null), eb("t.usable", "=", true)]));
  if (which === "allowed") q = q.where("t.trendable", "=", true);
  else if (which === "pending") q = q.where("t.reviewed_at", "is", null);
  else q = q.where((eb) => eb.or([eb("t.trendable", "=", true), eb("t.reviewed_at", "is", null)]));
  const uses = await q.execute();
  const byTag = new Map<string, { score: number; accounts: number }>();
  for (const u of uses) {
    const age = now - idTime(String(u.last_id)).getTime();
    const t = byTag.get(u.tag_id) ?? { score: 0, accounts: 0 };
    t.score += 0.5 ** (Math.max(age, 0) / HALF_LIFE_MS);
    t.accounts++;
    byTag.set(u.tag_id, t);
  }
  if (byTag.size === 0) return [];
  const tags = await rt.db
    .selectFrom("tags")
    .selectAll()
    .where("id", "in", [...byTag.keys()])
    .execute();
  return tags
    .map((tag) => ({ tag, ...byTag.get(tag.id)! }))
    .sort((a, b) => b.score - a.score || a.tag.name.localeCompare(b.tag.name));
}

export async function trendingTags(rt: Runtime, page: { limit: number; offset: number }): Promise<Tag[]> {
  const scored = await scoredTags(rt, "allowed");
  return scored.slice(page.offset, page.offset + page.limit).map((t) => t.tag);
}

/** Tags in use that no operator has reviewed yet, best first. */
export function tagsToReview(rt: Runtime): Promise<TagTrend[]> {
  return scoredTags(rt, "pending");
}

/** Tags trending now or that would once allowed, best first: what moderators review. */
export function trendCandidates(rt: Runtime): Promise<TagTrend[]> {
  return scoredTags(rt, "both");
}

/** An operator's review: the tag may trend publicly (allow) or never (deny). */
export async function reviewTag(rt: Runtime, name: string, trendable: boolean): Promise<Tag> {
  const tag = await findOrCreateTag(rt, name);
  await rt.db.updateTable("tags").set({ trendable, reviewed_at: new Date() }).where("id", "=", tag.id).execute();
  return { ...tag, trendable };
}
