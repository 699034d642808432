// Admin::Trends: what trends, as moderators review it, with approve and reject.
import { z } from "zod";
import { params, router } from "../../../http/hono.ts";
import { parse, zInt } from "../../../http/validate.ts";
import { renderStatuses } from "../../../serializers/status.ts";
import {
  reviewLinkTrend,
  reviewStatusTrend,
  reviewTagTrend,
  statusTrendsForReview,
  tagTrendsForReview,
} from "../../../services/moderation/admin_tags.ts";
import { loadStatusViews } from "../../../services/statuses/views.ts";
import { staffOf, staffOnly } from "./guard.ts";
import { renderTagsFor } from "./tags.ts";

export const adminTrends = router();

const read = staffOnly("manageTaxonomies", "admin:read");
const write = staffOnly("manageTaxonomies", "admin:write");

/** Mastodon's trends limit: `fallback` by default, at most twice that. */
async function limit(all: Awaited<ReturnType<typeof params>>, fallback: number): Promise<number> {
  const p = parse(z.object({ limit: zInt() }), all);
  return Math.min(Math.max(p.limit ?? fallback, 1), fallback * 2);
}

adminTrends.get("/api/v1/admin/trends/tags", read, async (c) => {
  const tags = await tagTrendsForReview(c.get("rt"), staffOf(c), await limit(await params(c), 10));
  return c.json(await renderTagsFor(c, tags));
});

for (const [action, approve] of [
  ["approve", true],
  ["reject", false],
] as const) {
  adminTrends.post(`/api/v1/admin/trends/tags/:id/${action}`, write, async (c) => {
    const tag = await reviewTagTrend(c.get("rt"), staffOf(c), c.req.param("id"), approve);
    return c.json((await renderTagsFor(c, [tag]))[0]);
  });
  adminTrends.post(`/api/v1/admin/trends/statuses/:id/${action}`, write, async (c) => {
    const actor = staffOf(c);
    const id = await reviewStatusTrend(c.get("rt"), actor, c.req.param("id"), approve);
    const views = await loadStatusViews(c.get("rt"), actor.accountId, [id], { context: "public" });
    return c.json(renderStatuses(c.get("rt"), views)[0] ?? {});
  });
  adminTrends.post(`/api/v1/admin/trends/links/:id/${action}`, write, (c) => reviewLinkTrend(staffOf(c)));
}

adminTrends.get("/api/v1/admin/trends/statuses", read, async (c) => {
  const actor = staffOf(c);
  const ids = await statusTrendsForReview(c.get("rt"), actor, await limit(await params(c), 20));
  return c.json(
    renderStatuses(c.get("rt"), await loadStatusViews(c.get("rt"), actor.accountId, ids, { context: "public" })),
  );
});

adminTrends.get("/api/v1/admin/trends/links", read, async (c) => {
  await limit(await params(c), 10);
  return c.json([]);
});
