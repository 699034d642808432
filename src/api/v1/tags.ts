import { params, router } from "../../http/hono.ts";
import { renderTags } from "../../serializers/tag.ts";
import { loadTagViews } from "../../services/statuses/tag_views.ts";
import { findOrCreateTag, followedTags, followTag, unfollowTag } from "../../services/statuses/tags.ts";
import { currentUser, requireUser, tokenIfGiven, viewerId } from "../auth.ts";
import { pageParams, setLinkHeader } from "../pagination.ts";

export const tags = router();

tags.get("/api/v1/tags/:name", tokenIfGiven("read:statuses"), async (c) => {
  const tag = await findOrCreateTag(c.var.rt, c.req.param("name"));
  return c.json(renderTags(c.var.rt.config, await loadTagViews(c.var.rt, [tag], viewerId(c)))[0]);
});

for (const [action, run] of [
  ["follow", followTag],
  ["unfollow", unfollowTag],
] as const) {
  tags.post(`/api/v1/tags/:name/${action}`, requireUser("write:follows", "follow"), async (c) => {
    const viewer = currentUser(c).accountId;
    const tag = await run(c.var.rt, viewer, c.req.param("name"));
    return c.json(renderTags(c.var.rt.config, await loadTagViews(c.var.rt, [tag], viewer))[0]);
  });
}

tags.get("/api/v1/followed_tags", requireUser("read:follows", "follow"), async (c) => {
  const viewer = currentUser(c).accountId;
  const result = await followedTags(c.var.rt, viewer, pageParams(await params(c), { default: 100, max: 200 }));
  setLinkHeader(c, c.var.rt.config.origin, result);
  return c.json(renderTags(c.var.rt.config, await loadTagViews(c.var.rt, result.items, viewer)));
});
