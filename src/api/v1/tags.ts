import { params, router } from "../../http/hono.ts";
import { renderTags } from "../../serializers/tag.ts";
import { loadTagViews } from "../../services/statuses/tag_views.ts";
import { findOrCreateTag, followedTags, followTag, unfollowTag } from "../../services/statuses/tags.ts";
import { currentUser, requireUser, tokenIfGiven, viewerId } from "../auth.ts";
import { pageParams, setLinkHeader } from "../pagination.ts";

export const tags = router();

tags.get("/api/v1/tags/:name", tokenIfGiven("read:statuses"), async (c) => {
  const tag = await findOrCreateTag(c.get("rt"), c.req.param("name"));
  return c.json(renderTags(c.get("rt").config, await loadTagViews(c.get("rt"), [tag], viewerId(c)))[0]);
});

for (const [action, run] of [
  ["follow", followTag],
  ["unfollow", unfollowTag],
] as const) {
  tags.post(`/api/v1/tags/:name/${action}`, requireUser("write:follows", "follow"), async (c) => {
    const viewer = currentUser(c).accountId;
    const tag = await run(c.get("rt"), viewer, c.req.param("name"));
    return c.json(renderTags(c.get("rt").config, await loadTagViews(c.get("rt"), [tag], viewer))[0]);
  });
}

tags.get("/api/v1/followed_tags", requireUser("read:follows", "follow"), async (c) => {
  const viewer = currentUser(c).accountId;
  const result = await followedTags(c.get("rt"), viewer, pageParams(await params(c), { default: 100, max: 200 }));
  setLinkHeader(c, c.get("rt").config.origin, result);
  return c.json(renderTags(c.get("rt").config, await loadTagViews(c.get("rt"), result.items, viewer)));
});
