// Admin::Trends: what trends, as moderators review it, with approve and reject.
import { z } from "zod";
import { type Ctx, params, router } from "../../../http/hono.ts";
import { parse, zInt } from "../../../http/validate.ts";
import { renderAccountView } from "../../../serializers/account.ts";
import { renderAdminLinkTrend, renderProvider } from "../../../serializers/preview_card.ts";
import { renderStatuses } from "../../../serializers/status.ts";
import { withAuthors } from "../../../services/cards/views.ts";
import {
  linkTrendsForReview,
  listProviders,
  reviewLinkTrend,
  reviewProvider,
} from "../../../services/moderation/admin_links.ts";
import {
  reviewStatusTrend,
  reviewTagTrend,
  statusTrendsForReview,
  tagTrendsForReview,
} from "../../../services/moderation/admin_tags.ts";
import { loadStatusViews } from "../../../services/statuses/views.ts";
import type { LinkTrend } from "../../../services/trends/links.ts";
import { pageParams, setLinkHeader } from "../../pagination.ts";
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
  adminTrends.post(`/api/v1/admin/trends/links/:id/${action}`, write, async (c) => {
    const link = await reviewLinkTrend(c.get("rt"), staffOf(c), c.req.param("id"), approve);
    return c.json((await renderLinks(c, [link]))[0]);
  });
  adminTrends.post(`/api/v1/admin/trends/links/publishers/:id/${action}`, write, async (c) => {
    return c.json(renderProvider(await reviewProvider(c.get("rt"), staffOf(c), c.req.param("id"), approve)));
  });
}

adminTrends.get("/api/v1/admin/trends/statuses", read, async (c) => {
  const actor = staffOf(c);
  const trends = await statusTrendsForReview(c.get("rt"), actor, await limit(await params(c), 20));
  const ids = trends.map((t) => t.id);
  return c.json(
    renderStatuses(c.get("rt"), await loadStatusViews(c.get("rt"), actor.accountId, ids, { context: "public" })),
  );
});

adminTrends.get("/api/v1/admin/trends/links", read, async (c) => {
  const links = await linkTrendsForReview(c.get("rt"), staffOf(c), await limit(await params(c), 10));
  return c.json(await renderLinks(c, links));
});

async function renderLinks(c: Ctx, links: LinkTrend[]) {
  const rt = c.get("rt");
  const views = await withAuthors(
    rt,
    links.map((t) => ({ card: t.card, url: t.card.url })),
  );
  return views.map((v, i) => renderAdminLinkTrend(rt.config, v, links[i], (a) => renderAccountView(rt, a)));
}

// Mastodon lists the publishers 100 at most, by id.
adminTrends.get("/api/v1/admin/trends/links/publishers", read, async (c) => {
  const all = await params(c);
  const result = await listProviders(c.get("rt"), staffOf(c), pageParams(all, { max: 100, default: 100 }));
  setLinkHeader(c, c.get("rt").config.origin, result);
  return c.json(result.items.map(renderProvider));
});
