// The CustomEmoji entity.
import type { Config } from "../config.ts";
import { mediaStorage } from "../media/storage.ts";
import type { CustomEmoji } from "../services/emojis/custom_emojis.ts";

export interface CustomEmojiEntity {
  shortcode: string;
  url: string;
  static_url: string;
  visible_in_picker: boolean;
  category: string | null;
}

export function renderCustomEmojis(config: Config, emojis: readonly CustomEmoji[]): CustomEmojiEntity[] {
  const storage = mediaStorage(config);
  return emojis.map((e) => ({
    shortcode: e.shortcode,
    url: storage.url(e.image_file),
    static_url: storage.url(e.static_file),
    visible_in_picker: e.visible_in_picker,
    category: e.category,
  }));
}
