// The List entity.
import type { List } from "../services/feeds/lists.ts";

export function renderList(l: List) {
  return { id: l.id, title: l.title, replies_policy: l.replies_policy, exclusive: l.exclusive };
}
