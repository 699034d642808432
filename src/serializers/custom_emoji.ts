// The CustomEmoji entity: this server's emojis, and those of other servers (from our storage once
// copied there, by their remote URL until then; not offered in the picker).
import type { Config } from "../config.ts";
import { mediaStorage } from "../media/storage.ts";
import type { CustomEmoji } from "../services/emojis/custom_emojis.ts";
import type { RemoteEmoji } from "../services/emojis/remote_emojis.ts";

export interface CustomEmojiEntity {
  shortcode: string;
  url: string;
  static_url: string;
  visible_in_picker: boolean;
  category: string | null;
}

export function renderCustomEmojis(
  config: Config,
  emojis: readonly (CustomEmoji | RemoteEmoji)[],
): CustomEmojiEntity[] {
  const storage = mediaStorage(config);
  return emojis.map((e) =>
    "image_url" in e
      ? {
          shortcode: e.shortcode,
          url: e.image_file ? storage.url(e.image_file) : e.image_url,
          static_url: e.static_file ? storage.url(e.static_file) : e.image_url,
          visible_in_picker: false,
          category: null,
        }
      : {
          shortcode: e.shortcode,
          url: storage.url(e.image_file),
          static_url: storage.url(e.static_file),
          visible_in_picker: e.visible_in_picker,
          category: e.category,
        },
  );
}
