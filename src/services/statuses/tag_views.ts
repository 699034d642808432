// What the Tag entity shows besides the tag itself, loaded for a whole page of tags at once: a week
// of use, and whether the viewer follows and features each.
import type { Runtime } from "../../runtime.ts";
import { featuredTagIds } from "../accounts/featured_tags.ts";
import { followedTagIds, type Tag, type TagDay, tagHistory } from "./tags.ts";

export interface TagView {
  tag: Tag;
  history: TagDay[];
  /** Absent without a viewer. */
  following?: boolean;
  featuring?: boolean;
}

export async function loadTagViews(rt: Runtime, tags: Tag[], viewerId: string | null): Promise<TagView[]> {
  const ids = tags.map((t) => t.id);
  const [history, followed, featured] = await Promise.all([
    tagHistory(rt, ids),
    followedTagIds(rt, viewerId, ids),
    featuredTagIds(rt, viewerId, ids),
  ]);
  return tags.map((tag) => ({
    tag,
    history: history.get(tag.id) ?? [],
    following: viewerId ? followed.has(tag.id) : undefined,
    featuring: viewerId ? featured.has(tag.id) : undefined,
  }));
}
