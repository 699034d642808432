// Hashtags as moderators manage them (Mastodon's Admin::Tags and trends review): whether a tag may
// trend, be used and be listed (search, trends), and the review of trending tags and statuses
// (links: admin_links.ts).
import { startsWith } from "../../db/like.ts";
import { type Page, type PageResult, paginate } from "../../db/paginate.ts";
import { notFound } from "../../domain/errors.ts";
import { isId } from "../../domain/ids.ts";
import { normalizeHashtag } from "../../domain/text/index.ts";
import type { Runtime } from "../../runtime.ts";
import type { Tag } from "../statuses/tags.ts";
import { trendingStatuses } from "../trends/statuses.ts";
import { trendCandidates } from "../trends/tags.ts";
import { logAction } from "./audit_log.ts";
import { requirePermission, type Staff } from "./staff.ts";

/** Mastodon's Admin::TagFilter statuses that Rookery's tags can tell apart. */
export const TAG_STATUSES = ["reviewed", "unreviewed"] as const;

export interface TagFilter {
  /** The start of the name, with or without its "#". */
  name?: string;
  status?: (typeof TAG_STATUSES)[number];
}

export async function listTags(rt: Runtime, actor: Staff, page: Page, f: TagFilter = {}): Promise<PageResult<Tag>> {
  requirePermission(actor, "manageTaxonomies");
  let q = rt.db.selectFrom("tags").selectAll();
  const name = f.name?.trim().replace(/^[#＃]/u, "");
  if (name) q = q.where(startsWith("name", normalizeHashtag(name)));
  if (f.status === "reviewed") q = q.where("reviewed_at", "is not", null);
  else if (f.status === "unreviewed") q = q.where("reviewed_at", "is", null);
  return paginate(q, "id", page);
}

export async function getTag(rt: Runtime, actor: Staff, id: string): Promise<Tag> {
  requirePermission(actor, "manageTaxonomies");
  const tag = isId(id) ? await rt.db.selectFrom("tags").selectAll().where("id", "=", id).executeTakeFirst() : null;
  if (!tag) throw notFound();
  return tag;
}

export interface TagChanges {
  /** Another spelling of the same name (case only, as in Mastodon); others are ignored. */
  displayName?: string;
  trendable?: boolean;
  usable?: boolean;
  listable?: boolean;
}

export async function updateTag(rt: Runtime, actor: Staff, id: string, c: TagChanges): Promise<Tag> {
  const tag = await getTag(rt, actor, id);
  const values = {
    ...(c.displayName && c.displayName.toLowerCase() === tag.display_name.toLowerCase()
      ? { display_name: c.displayName }
      : {}),
    ...(c.trendable !== undefined ? { trendable: c.trendable, reviewed_at: new Date() } : {}),
    ...(c.usable !== undefined ? { usable: c.usable } : {}),
    ...(c.listable !== undefined ? { listable: c.listable } : {}),
  };
  if (Object.keys(values).length === 0) return tag;
  await rt.db.transaction().execute(async (trx) => {
    await trx.updateTable("tags").set(values).where("id", "=", id).execute();
    await logAction(trx, actor, { action: "update", targetType: "Tag", targetId: id, identifier: tag.name });
  });
  return { ...tag, ...values };
}

/** Tags trending or waiting for review, best first. */
export async function tagTrendsForReview(rt: Runtime, actor: Staff, limit: number): Promise<Tag[]> {
  requirePermission(actor, "manageTaxonomies");
  return (await trendCandidates(rt)).slice(0, limit).map((t) => t.tag);
}

/** Approves (or rejects) a tag for trends. */
export async function reviewTagTrend(rt: Runtime, actor: Staff, id: string, approve: boolean): Promise<Tag> {
  const tag = await getTag(rt, actor, id);
  const values = { trendable: approve, reviewed_at: new Date() };
  await rt.db.transaction().execute(async (trx) => {
    await trx.updateTable("tags").set(values).where("id", "=", id).execute();
    await logAction(trx, actor, {
      action: approve ? "approve" : "reject",
      targetType: "Tag",
      targetId: id,
      identifier: tag.name,
    });
  });
  return { ...tag, ...values };
}

export interface StatusTrend {
  id: string;
  /** Moderators' review: null until reviewed (statuses trend unless rejected). */
  trendable: boolean | null;
}

/** Statuses trending, rejected ones too, best first. */
export async function statusTrendsForReview(rt: Runtime, actor: Staff, limit: number): Promise<StatusTrend[]> {
  requirePermission(actor, "manageTaxonomies");
  const ids = await trendingStatuses(rt, actor.accountId, { limit, offset: 0 }, true);
  if (ids.length === 0) return [];
  const rows = await rt.db.selectFrom("statuses").select(["id", "trendable"]).where("id", "in", ids).execute();
  const reviewed = new Map(rows.map((r) => [r.id, r.trendable === null ? null : Boolean(r.trendable)]));
  return ids.map((id) => ({ id, trendable: reviewed.get(id) ?? null }));
}

/** Lets a status trend again, or keeps it from trending. */
export async function reviewStatusTrend(rt: Runtime, actor: Staff, id: string, approve: boolean): Promise<string> {
  requirePermission(actor, "manageTaxonomies");
  const status = isId(id)
    ? await rt.db
        .selectFrom("statuses")
        .select(["id", "uri"])
        .where("id", "=", id)
        .where("deleted_at", "is", null)
        .executeTakeFirst()
    : null;
  if (!status) throw notFound();
  await rt.db.transaction().execute(async (trx) => {
    await trx.updateTable("statuses").set({ trendable: approve }).where("id", "=", id).execute();
    await logAction(trx, actor, {
      action: approve ? "approve" : "reject",
      targetType: "Status",
      targetId: id,
      identifier: status.uri,
    });
  });
  return id;
}
