// The FeaturedTag entity.
import { urls } from "../domain/urls.ts";
import type { Runtime } from "../runtime.ts";
import type { FeaturedTag } from "../services/accounts/featured_tags.ts";

export function renderFeaturedTag(rt: Runtime, f: FeaturedTag) {
  return {
    id: f.id,
    name: f.name,
    url: urls(rt.config).accountTaggedUrl(f.username, f.tagName),
    // A string, as Mastodon gives it.
    statuses_count: String(f.statusesCount),
    last_status_at: f.lastStatusAt ? f.lastStatusAt.toISOString().slice(0, 10) : null,
  };
}
