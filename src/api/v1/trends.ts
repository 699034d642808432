import { z } from "zod";
import { type Ctx, params, router, sendJson } from "../../http/hono.ts";
import { parse, zInt } from "../../http/validate.ts";
import { renderAccountView } from "../../serializers/account.ts";
import { renderLinkTrend } from "../../serializers/preview_card.ts";
import { statusesJson } from "../../serializers/status.ts";
import { renderTags } from "../../serializers/tag.ts";
import { withAuthors } from "../../services/cards/views.ts";
import { loadTagViews } from "../../services/statuses/tag_views.ts";
import { loadStatusViews } from "../../services/statuses/views.ts";
import { trendingLinks } from "../../services/trends/links.ts";
import { trendingStatuses } from "../../services/trends/statuses.ts";
import { trendingTags } from "../../services/trends/tags.ts";
import { tokenIfGiven, viewerId } from "../auth.ts";

export const trends = router();

/** Mastodon's limit_param for trends: `fallback` by default, at most twice that. */
async function page(c: Ctx, fallback: number) {
  const p = parse(z.object({ limit: zInt(), offset: zInt() }), await params(c));
  return { limit: Math.min(Math.abs(p.limit ?? fallback), fallback * 2), offset: Math.max(p.offset ?? 0, 0) };
}

const tagsRoute = async (c: Ctx) => {
  const tags = await trendingTags(c.get("rt"), await page(c, 10));
  return c.json(renderTags(c.get("rt").config, await loadTagViews(c.get("rt"), tags, viewerId(c))));
};
trends.get("/api/v1/trends/tags", tokenIfGiven("read"), tagsRoute);
// The path of Mastodon 3.0, kept as an alias.
trends.get("/api/v1/trends", tokenIfGiven("read"), tagsRoute);

trends.get("/api/v1/trends/statuses", tokenIfGiven("read"), async (c) => {
  const viewer = viewerId(c);
  const ids = await trendingStatuses(c.get("rt"), viewer, await page(c, 20));
  return sendJson(c, statusesJson(c.get("rt"), await loadStatusViews(c.get("rt"), viewer, ids, { context: "public" })));
});

trends.get("/api/v1/trends/links", tokenIfGiven("read"), async (c) => {
  const rt = c.get("rt");
  const links = await trendingLinks(rt, await page(c, 10));
  const views = await withAuthors(
    rt,
    links.map((t) => ({ card: t.card, url: t.card.url })),
  );
  return c.json(views.map((v, i) => renderLinkTrend(rt.config, v, links[i].history, (a) => renderAccountView(rt, a))));
});
