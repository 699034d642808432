// Admin::Tags: hashtags as moderators manage them.
import { z } from "zod";
import type { Ctx } from "../../../http/hono.ts";
import { params, router } from "../../../http/hono.ts";
import { parse, zBool, zText } from "../../../http/validate.ts";
import { renderAdminTags } from "../../../serializers/admin_tag.ts";
import { getTag, listTags, updateTag } from "../../../services/moderation/admin_tags.ts";
import { loadTagViews } from "../../../services/statuses/tag_views.ts";
import type { Tag } from "../../../services/statuses/tags.ts";
import { setLinkHeader } from "../../pagination.ts";
import { adminPage, staffOf, staffOnly } from "./guard.ts";

export const adminTags = router();

const read = staffOnly("manageTaxonomies", "admin:read");
const write = staffOnly("manageTaxonomies", "admin:write");

export const renderTagsFor = async (c: Ctx, tags: Tag[]) =>
  renderAdminTags(c.get("rt").config, await loadTagViews(c.get("rt"), tags, staffOf(c).accountId));

adminTags.get("/api/v1/admin/tags", read, async (c) => {
  const result = await listTags(c.get("rt"), staffOf(c), adminPage(await params(c)));
  setLinkHeader(c, c.get("rt").config.origin, result);
  return c.json(await renderTagsFor(c, result.items));
});

adminTags.get("/api/v1/admin/tags/:id", read, async (c) =>
  c.json((await renderTagsFor(c, [await getTag(c.get("rt"), staffOf(c), c.req.param("id"))]))[0]),
);

const schema = z.object({ display_name: zText(), trendable: zBool(), usable: zBool(), listable: zBool() });

adminTags.put("/api/v1/admin/tags/:id", write, async (c) => {
  const p = parse(schema, await params(c));
  const tag = await updateTag(c.get("rt"), staffOf(c), c.req.param("id"), {
    displayName: p.display_name,
    trendable: p.trendable,
    usable: p.usable,
    listable: p.listable,
  });
  return c.json((await renderTagsFor(c, [tag]))[0]);
});
