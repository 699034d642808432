// The Announcement entity, with the viewer's `read` and reactions.
import type { Config } from "../config.ts";
import { extractHashtags } from "../domain/text/index.ts";
import { urls } from "../domain/urls.ts";
import { mediaStorage } from "../media/storage.ts";
import type { AnnouncementView } from "../services/announcements/announcements.ts";
import { renderCustomEmojis } from "./custom_emoji.ts";

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function renderAnnouncements(config: Config, views: AnnouncementView[]) {
  const u = urls(config);
  const storage = mediaStorage(config);
  return views.map(({ row, read, reactions, emojis }) => ({
    id: row.id,
    content: row.content,
    starts_at: iso(row.starts_at),
    ends_at: iso(row.ends_at),
    all_day: row.all_day,
    published_at: row.published_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    read,
    mentions: row.mentions,
    statuses: row.statuses,
    tags: extractHashtags(row.text).map((name) => ({ name, url: u.tagUrl(name) })),
    emojis: renderCustomEmojis(config, emojis),
    reactions: reactions.map((r) => ({
      name: r.name,
      count: r.count,
      me: r.me,
      ...(r.emoji ? { url: storage.url(r.emoji.image_file), static_url: storage.url(r.emoji.static_file) } : {}),
    })),
  }));
}
