// The Tag entity, with a week of history and whether the viewer follows and features it.
import type { Config } from "../config.ts";
import { urls } from "../domain/urls.ts";
import type { TagView } from "../services/statuses/tag_views.ts";

export function renderTags(config: Config, views: TagView[]) {
  const u = urls(config);
  return views.map(({ tag, history, following, featuring }) => ({
    id: tag.id,
    name: tag.display_name,
    url: u.tagUrl(tag.name),
    history,
    following,
    featuring,
  }));
}
