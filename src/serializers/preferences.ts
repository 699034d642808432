// The Preferences entity, with Mastodon's defaults for settings never changed.
import type { UserSettings } from "../db/schema.ts";

export function renderPreferences(s: UserSettings) {
  return {
    "posting:default:visibility": s.default_privacy ?? "public",
    "posting:default:sensitive": s.default_sensitive ?? false,
    "posting:default:language": s.default_language || null,
    "reading:expand:media": s.expand_media ?? "default",
    "reading:expand:spoilers": s.expand_spoilers ?? false,
  };
}
