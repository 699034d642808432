import { z } from "zod";
import { params, router } from "../../http/hono.ts";
import { parse, pathId, zText } from "../../http/validate.ts";
import { renderFeaturedTag } from "../../serializers/featured_tag.ts";
import { renderTags } from "../../serializers/tag.ts";
import { requireAccountExists } from "../../services/accounts/accounts.ts";
import {
  featuredTagSuggestions,
  featuredTagsOf,
  featureTag,
  unfeatureTag,
  unfeatureTagById,
} from "../../services/accounts/featured_tags.ts";
import { loadTagViews } from "../../services/statuses/tag_views.ts";
import { findOrCreateTag } from "../../services/statuses/tags.ts";
import { currentUser, requireUser, tokenIfGiven } from "../auth.ts";

export const featuredTagsApi = router();

featuredTagsApi.get("/api/v1/featured_tags", requireUser("read:accounts"), async (c) => {
  const featured = await featuredTagsOf(c.get("rt"), currentUser(c).accountId);
  return c.json(featured.map((f) => renderFeaturedTag(c.get("rt"), f)));
});

featuredTagsApi.post("/api/v1/featured_tags", requireUser("write:accounts"), async (c) => {
  const p = parse(z.object({ name: zText() }), await params(c));
  const featured = await featureTag(c.get("rt"), currentUser(c).accountId, p.name ?? "");
  return c.json(renderFeaturedTag(c.get("rt"), featured));
});

featuredTagsApi.get("/api/v1/featured_tags/suggestions", requireUser("read:accounts"), async (c) => {
  const viewer = currentUser(c).accountId;
  const suggestions = await featuredTagSuggestions(c.get("rt"), viewer);
  return c.json(renderTags(c.get("rt").config, await loadTagViews(c.get("rt"), suggestions, viewer)));
});

featuredTagsApi.delete("/api/v1/featured_tags/:id", requireUser("write:accounts"), async (c) => {
  await unfeatureTagById(c.get("rt"), currentUser(c).accountId, pathId(c.req.param("id")));
  return c.json({});
});

featuredTagsApi.get("/api/v1/accounts/:id/featured_tags", tokenIfGiven("read:accounts"), async (c) => {
  const id = pathId(c.req.param("id"));
  const account = await requireAccountExists(c.get("rt"), id);
  // A suspended account features nothing, as in Mastodon.
  if (account.suspended) return c.json([]);
  return c.json((await featuredTagsOf(c.get("rt"), id)).map((f) => renderFeaturedTag(c.get("rt"), f)));
});

// The same from a hashtag's side (Mastodon 4.4): answers the Tag, with `featuring`.
featuredTagsApi.post("/api/v1/tags/:name/feature", requireUser("write:accounts"), async (c) => {
  const viewer = currentUser(c).accountId;
  const name = c.req.param("name");
  const tag = await findOrCreateTag(c.get("rt"), name);
  await featureTag(c.get("rt"), viewer, name);
  return c.json(renderTags(c.get("rt").config, await loadTagViews(c.get("rt"), [tag], viewer))[0]);
});

featuredTagsApi.post("/api/v1/tags/:name/unfeature", requireUser("write:accounts"), async (c) => {
  const viewer = currentUser(c).accountId;
  const tag = await unfeatureTag(c.get("rt"), viewer, c.req.param("name"));
  return c.json(renderTags(c.get("rt").config, await loadTagViews(c.get("rt"), [tag], viewer))[0]);
});
