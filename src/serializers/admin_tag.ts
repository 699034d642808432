// The Admin::Tag entity: a Tag with what moderators decided about it.
import type { Config } from "../config.ts";
import type { TagView } from "../services/statuses/tag_views.ts";
import { renderTags } from "./tag.ts";

export function renderAdminTags(config: Config, views: TagView[]) {
  const tags = renderTags(config, views);
  return views.map(({ tag }, i) => ({
    ...tags[i],
    trendable: tag.trendable === true,
    usable: tag.usable !== false,
    listable: tag.listable !== false,
    requires_review: tag.reviewed_at === null,
  }));
}
