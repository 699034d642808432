import { z } from "zod";
import { badRequest, notFound } from "../../domain/errors.ts";
import { type Ctx, params, router, sendJson } from "../../http/hono.ts";
import { parse, zInt, zText } from "../../http/validate.ts";
import { statusesJson } from "../../serializers/status.ts";
import { renderTags } from "../../serializers/tag.ts";
import { loadTagViews } from "../../services/statuses/tag_views.ts";
import { loadStatusViews } from "../../services/statuses/views.ts";
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

// Links trend from their preview cards, which Rookery does not fetch yet: none trends.
trends.get("/api/v1/trends/links", tokenIfGiven("read"), async (c) => {
  await page(c, 10);
  return c.json([]);
});

// The statuses sharing a trending link; with no link previews, no link is trending, and Mastodon
// answers an unknown link with 404.
trends.get("/api/v1/timelines/link", tokenIfGiven("read:statuses"), async (c) => {
  const p = parse(z.object({ url: zText() }), await params(c));
  if (!p.url) throw badRequest("param is missing or the value is empty: url");
  throw notFound();
});
