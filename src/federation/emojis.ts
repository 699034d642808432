// Custom emojis as ActivityPub `Emoji` tags (Mastodon's toot:Emoji): the ones other servers' Notes
// and actors name, read into what src/services/emojis/remote_emojis.ts keeps, and this server's own
// that a status or profile uses, written as Mastodon writes them (id, `:shortcode:`, updated, icon).
import { type Object as ApObject, Emoji, Image } from "@fedify/fedify/vocab";
import { urls } from "../domain/urls.ts";
import { mediaStorage } from "../media/storage.ts";
import type { Runtime } from "../runtime.ts";
import type { CustomEmoji } from "../services/emojis/custom_emojis.ts";
import { type EmojiTag, saveRemoteEmojis } from "../services/emojis/remote_emojis.ts";
import { peerPolicy } from "./peers.ts";
import { instant } from "./temporal.ts";

/** What an `Emoji` tag names, or null when it names no image. */
async function emojiTag(tag: Emoji): Promise<EmojiTag | null> {
  const shortcode = String(tag.name ?? "").replace(/^:|:$/g, "");
  const icon = await tag.getIcon().catch(() => null);
  const url = icon?.url instanceof URL ? icon.url.href : (icon?.url?.href?.href ?? null);
  return shortcode && url ? { shortcode, uri: tag.id?.href ?? null, imageUrl: url } : null;
}

/** The emojis an object's (a Note's, an actor's) tags name. */
async function emojiTagsOf(object: ApObject): Promise<EmojiTag[]> {
  const found: EmojiTag[] = [];
  for await (const tag of object.getTags()) {
    if (!(tag instanceof Emoji)) continue;
    const emoji = await emojiTag(tag);
    if (emoji) found.push(emoji);
  }
  return found;
}

/**
 * Keeps the emojis an object of the server `domain` names; none from a server whose media are
 * rejected, as Mastodon downloads none of its emojis.
 */
export async function keepEmojisOf(rt: Runtime, domain: string, object: ApObject): Promise<void> {
  if ((await peerPolicy(rt, domain)).rejectMedia) return;
  await saveRemoteEmojis(rt, domain, await emojiTagsOf(object));
}

const IMAGE_TYPES: Record<string, string> = { png: "image/png", gif: "image/gif", webp: "image/webp" };

/** This server's emojis `emojis` as `Emoji` tags. */
export function localEmojiTags(rt: Runtime, emojis: readonly CustomEmoji[]): Emoji[] {
  const storage = mediaStorage(rt.config);
  return emojis.map(
    (e) =>
      new Emoji({
        id: new URL(urls(rt.config).emojiUri(e.id)),
        name: `:${e.shortcode}:`,
        updated: instant(e.updated_at),
        icon: new Image({
          url: new URL(storage.url(e.image_file)),
          mediaType: IMAGE_TYPES[e.image_file.split(".").pop() ?? ""] ?? null,
        }),
      }),
  );
}
