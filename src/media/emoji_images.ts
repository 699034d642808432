// Custom emoji images: PNG, GIF or WebP of at most 256 KB (Mastodon's limit for local emojis),
// re-encoded by sharp in their own format (which also proves they are images and drops their
// metadata), no larger than 400×400, and a static PNG of the first frame for `static_url`.
import type { Metadata } from "sharp";
import { sharp as loadSharp } from "./process.ts";

export const EMOJI_MAX_BYTES = 256 * 1024;
const SIZE = { width: 400, height: 400, fit: "inside", withoutEnlargement: true } as const;

export interface EmojiImage {
  data: Buffer;
  extension: "png" | "gif" | "webp";
  still: Buffer;
}

export class EmojiImageError extends Error {}

export async function processEmojiImage(input: Buffer): Promise<EmojiImage> {
  if (input.length > EMOJI_MAX_BYTES) throw new EmojiImageError("must be at most 256 KB");
  const sharp = loadSharp();
  let meta: Metadata;
  try {
    meta = await sharp(input).metadata();
  } catch {
    throw new EmojiImageError("is not an image");
  }
  const format = meta.format;
  if (format !== "png" && format !== "gif" && format !== "webp")
    throw new EmojiImageError("must be a PNG, GIF or WebP image");
  const image = sharp(input, { animated: (meta.pages ?? 1) > 1 }).resize(SIZE);
  const data = await (format === "png" ? image.png() : format === "gif" ? image.gif() : image.webp()).toBuffer();
  const still = await sharp(input).resize(SIZE).png().toBuffer();
  return { data, extension: format, still };
}
