// The Tag entity, with a week of history and whether the viewer follows and features it.
import { urls } from "../domain/urls.ts";
import type { Runtime } from "../runtime.ts";
import { featuredTagIds } from "../services/accounts/featured_tags.ts";
import { followedTagIds, type Tag, tagHistory } from "../services/statuses/tags.ts";

export async function renderTags(rt: Runtime, tags: Tag[], viewerId: string | null) {
  const ids = tags.map((t) => t.id);
  const [history, followed, featured] = await Promise.all([
    tagHistory(rt, ids),
    followedTagIds(rt, viewerId, ids),
    featuredTagIds(rt, viewerId, ids),
  ]);
  const u = urls(rt.config);
  return tags.map((t) => ({
    id: t.id,
    name: t.display_name,
    url: u.tagUrl(t.name),
    history: history.get(t.id) ?? [],
    following: viewerId ? followed.has(t.id) : undefined,
    featuring: viewerId ? featured.has(t.id) : undefined,
  }));
}
