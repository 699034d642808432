// Profile pictures and banners: judged by their bytes as media uploads are (process.ts), then
// resized and re-encoded with sharp. Sizes, formats and the 8 MB limit are Mastodon's.
import { type FieldError, validationFailed } from "../domain/errors.ts";
import type { Upload } from "../domain/uploads.ts";
import { detectImage, sharp } from "./process.ts";

export type ProfileImageKind = "avatar" | "header";

export interface ProcessedImage {
  data: Buffer;
  extension: "png" | "jpg" | "webp" | "gif";
  /** A still of a GIF (its first frame), for `avatar_static` and `header_static`. */
  still: Buffer | null;
}

const SIZES = { avatar: { width: 400, height: 400 }, header: { width: 1500, height: 500 } } as const;
const MAX_BYTES = 8 * 1024 * 1024;
/** Mastodon's image matrix limit: a small file can decode to an enormous picture. */
const MAX_PIXELS = 33_177_600;
const FORMATS = ["jpeg", "png", "webp", "gif"];

/** Paperclip's errors: on `avatar_file_size` (or `_content_type`) and again on `avatar` itself. */
function refused(kind: ProfileImageKind, part: "file_size" | "content_type", error: FieldError) {
  return validationFailed({ [`${kind}_${part}`]: [error], [kind]: [error] });
}

export async function processProfileImage(file: Upload, kind: ProfileImageKind): Promise<ProcessedImage> {
  if (file.size >= MAX_BYTES) {
    throw refused(kind, "file_size", { error: "ERR_LESS_THAN", description: "must be less than 8 MB" });
  }
  const input = file.bytes;
  const detected = await detectImage(input);
  if (!detected || !FORMATS.includes(detected.format))
    throw refused(kind, "content_type", { error: "ERR_INVALID", description: "is invalid" });
  if (detected.width * detected.height > MAX_PIXELS) {
    throw refused(kind, "file_size", { error: "ERR_INVALID", description: "dimensions are too large" });
  }
  const cover = { ...SIZES[kind], fit: "cover", withoutEnlargement: true } as const;
  const resized = sharp()(input, { animated: detected.animated }).rotate().resize(cover);
  switch (detected.format) {
    case "gif":
      return {
        data: await resized.gif().toBuffer(),
        extension: "gif",
        still: await sharp()(input).rotate().resize(cover).png().toBuffer(),
      };
    case "jpeg":
      return { data: await resized.jpeg({ quality: 85, mozjpeg: true }).toBuffer(), extension: "jpg", still: null };
    case "webp":
      return { data: await resized.webp({ quality: 85 }).toBuffer(), extension: "webp", still: null };
    default:
      return { data: await resized.png().toBuffer(), extension: "png", still: null };
  }
}

/** Where a GIF's still is kept; any other image is its own still. */
export function stillKey(key: string): string {
  return key.replace(/\.gif$/, ".still.png");
}
