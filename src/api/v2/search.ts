import { z } from "zod";
import { badRequest } from "../../domain/errors.ts";
import { isId } from "../../domain/ids.ts";
import { params, router } from "../../http/hono.ts";
import { parse, zBool, zInt, zText } from "../../http/validate.ts";
import { renderStatuses } from "../../serializers/status.ts";
import { renderTags } from "../../serializers/tag.ts";
import { search } from "../../services/search/search.ts";
import { loadTagViews } from "../../services/statuses/tag_views.ts";
import { loadStatusViews } from "../../services/statuses/views.ts";
import { accountEntities } from "../account_pages.ts";
import { tokenIfGiven, viewerId } from "../auth.ts";

export const searchApi = router();

const schema = z.object({
  q: zText(),
  type: zText(),
  limit: zInt(),
  offset: zInt(),
  min_id: zText(),
  max_id: zText(),
  account_id: zText(),
  following: zBool(),
  exclude_unreviewed: zBool(),
  resolve: zBool(),
});

const id = (value: string | undefined) => (value !== undefined && isId(value) ? value : undefined);

searchApi.get("/api/v2/search", tokenIfGiven("read:search"), async (c) => {
  const p = parse(schema, await params(c));
  if (p.q === undefined || p.q.trim() === "") throw badRequest("param is missing or the value is empty: q");
  const rt = c.get("rt");
  const viewer = viewerId(c);
  const found = await search(rt, viewer, {
    q: p.q,
    type: p.type,
    // Mastodon's limit_param: 20 by default, at most twice that.
    limit: Math.min(Math.abs(p.limit ?? 20), 40),
    offset: Math.max(p.offset ?? 0, 0),
    minId: id(p.min_id),
    maxId: id(p.max_id),
    accountId: id(p.account_id),
    following: p.following ?? false,
    excludeUnreviewed: p.exclude_unreviewed ?? false,
    resolve: p.resolve ?? false,
  });
  const [accounts, statuses, tagViews] = await Promise.all([
    accountEntities(rt, found.accounts),
    loadStatusViews(rt, viewer, found.statuses, { context: "public" }),
    loadTagViews(rt, found.hashtags, viewer),
  ]);
  return c.json({ accounts, statuses: renderStatuses(rt, statuses), hashtags: renderTags(rt.config, tagViews) });
});
