// Turning an upload into the files Rookery serves: images with sharp (orientation applied, metadata
// dropped, re-encoded, a ~640 px preview and its blurhash), animated GIFs, video and audio with ffmpeg.
// What a file is comes from its bytes, never from its name or declared type.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encode } from "blurhash";
import type SharpModule from "sharp";
import type { Sharp } from "sharp";
import type { Limits } from "../config.ts";
import type { MediaMeta, MediaType } from "../db/schema.ts";
import { unprocessable } from "../domain/errors.ts";
import { lazy } from "../lazy.ts";
import { type Ffmpeg, type Probe, type ProbeStream, probe, transcode } from "./ffmpeg.ts";
import { withFreeImageSlot, withImageSlot } from "./image_slots.ts";

export interface OutputFile {
  data: Buffer;
  extension: string;
  contentType: string;
}

export interface ProcessedMedia {
  file: OutputFile;
  preview: OutputFile | null;
  meta: MediaMeta;
  blurhash: string | null;
}

/** What the bytes of an upload are. */
export type Detected =
  | {
      kind: "image";
      format: string;
      width: number;
      height: number;
      animated: boolean;
      alpha: boolean;
      /** Upright as stored, and without EXIF, XMP or IPTC metadata: fit to be served as it is. */
      bare: boolean;
    }
  | { kind: "video" | "audio"; probe: Probe };

const IMAGE_FORMATS = ["jpeg", "png", "webp", "gif", "heif"];
/** Originals larger than this many pixels are scaled down (Mastodon's 3840×2160). */
export const ORIGINAL_PIXELS = 8_294_400;
const PREVIEW_SIZE = 640;
/**
 * JPEG output without optimised Huffman tables: the same pixels in a file a few percent larger,
 * for about a third less CPU in encoding a 12-megapixel photo (135 against 211 ms measured).
 */
const JPEG = { optimiseCoding: false } as const;
/**
 * Scaling an original down past ORIGINAL_PIXELS (a 12-megapixel photo by 0.83) with libvips' bilinear
 * reduce, which widens its kernel to the reduction and so still averages every source pixel: about
 * 10 ms less CPU than lanczos3 for that photo, for a result 38 dB (PSNR) from lanczos3's even on
 * the benchmark's fine grain, where encoding it as a JPEG at quality 85 alone is 32 dB from it.
 */
const ORIGINAL_KERNEL = "linear";

const loadSharp = lazy<typeof SharpModule>("sharp");
let sharpConfigured = false;

/**
 * sharp, loaded on the first image (src/lazy.ts), with one libvips thread per image (see
 * processImage). Every upload is a new image: libvips' cache of operations would only hold memory.
 */
export function sharp(): typeof SharpModule {
  const loaded = loadSharp();
  if (!sharpConfigured) {
    loaded.concurrency(1);
    loaded.cache(false);
    sharpConfigured = true;
  }
  return loaded;
}

export const invalidFile = () =>
  unprocessable("Validation failed: File content type is invalid, File could not be read as an image, video or audio");

/** The image format sharp reads from the bytes, or null. */
export async function detectImage(input: Buffer): Promise<Extract<Detected, { kind: "image" }> | null> {
  try {
    const m = await sharp()(input, { limitInputPixels: false }).metadata();
    if (!IMAGE_FORMATS.includes(m.format) || !m.width || !m.height) return null;
    // EXIF orientations 5–8 turn the picture a quarter: its displayed size is the other way round.
    const turned = (m.orientation ?? 1) >= 5;
    return {
      kind: "image",
      format: m.format,
      width: turned ? m.height : m.width,
      height: turned ? m.width : m.height,
      animated: (m.pages ?? 1) > 1,
      alpha: m.hasAlpha,
      bare: (m.orientation ?? 1) === 1 && !m.exif && !m.xmp && !m.iptc,
    };
  } catch {
    return null;
  }
}

/** Containers and audio formats known by their first bytes, to tell "no ffmpeg" apart from garbage. */
export function looksLikeAudioOrVideo(b: Buffer): boolean {
  const ascii = (start: number, end: number) => b.subarray(start, end).toString("latin1");
  return (
    ascii(4, 8) === "ftyp" ||
    b.readUInt32BE(0) === 0x1a45dfa3 ||
    ascii(0, 4) === "OggS" ||
    ascii(0, 4) === "fLaC" ||
    ascii(0, 3) === "ID3" ||
    (ascii(0, 4) === "RIFF" && ["WAVE", "AVI "].includes(ascii(8, 12))) ||
    (b[0] === 0xff && (b[1]! & 0xe0) === 0xe0)
  );
}

/** A picture's size as Mastodon's `meta.original` and `meta.small` give it. */
export const shape = (width: number, height: number) => ({
  width,
  height,
  size: `${width}x${height}`,
  aspect: Math.round((width / height) * 1e6) / 1e6,
});

/** The blurhash (4×4) of an upright picture. */
async function blurhashOf(picture: Buffer): Promise<string> {
  const pixels = await sharp()(picture)
    .resize(32, 32, { fit: "inside" })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return encode(new Uint8ClampedArray(pixels.data), pixels.info.width, pixels.info.height, 4, 4);
}

/**
 * The preview of a picture (an image, a video's first frame, a custom thumbnail) and its blurhash.
 * `alpha`, whether the picture has an alpha channel, is read from it unless the caller knows; `side`,
 * the box it fits in (a link preview's is Mastodon's 400 px).
 */
export async function previewOf(
  input: Buffer,
  alpha?: boolean,
  side = PREVIEW_SIZE,
): Promise<{ file: OutputFile; small: MediaMeta["small"]; blurhash: string }> {
  const picture = sharp()(input, { limitInputPixels: false }).rotate();
  const hasAlpha = alpha ?? (await picture.metadata()).hasAlpha;
  const small = picture.resize(side, side, { fit: "inside", withoutEnlargement: true });
  const out = hasAlpha
    ? await small.png().toBuffer({ resolveWithObject: true })
    : await small.jpeg({ ...JPEG, quality: 80 }).toBuffer({ resolveWithObject: true });
  return {
    file: {
      data: out.data,
      extension: hasAlpha ? "png" : "jpg",
      contentType: hasAlpha ? "image/png" : "image/jpeg",
    },
    small: shape(out.info.width, out.info.height),
    blurhash: await blurhashOf(out.data),
  };
}

/** Formats an original is kept in as it came, when `asReceived` allows it. */
const KEPT_FORMATS: Record<string, { extension: string; contentType: string }> = {
  jpeg: { extension: "jpg", contentType: "image/jpeg" },
  png: { extension: "png", contentType: "image/png" },
  webp: { extension: "webp", contentType: "image/webp" },
};

/**
 * A still image: JPEG stays JPEG, PNG and WebP stay themselves, anything else becomes PNG or JPEG.
 * With `asReceived` (another server's media, as Mastodon's lazy thumbnail does for them), an
 * original that needs no change (a still JPEG, PNG or WebP, upright, no larger than our originals,
 * without metadata) is kept as it came: only its preview is made. Each image is worked on by one
 * libvips thread, and the process works on as many images at once as it has cores
 * (image_slots.ts): a burst of uploads queues instead of taking more than its share of the CPU from
 * the requests answered beside it.
 */
export function processImage(
  input: Buffer,
  detected: Extract<Detected, { kind: "image" }>,
  options: { asReceived?: boolean } = {},
): Promise<ProcessedMedia> {
  const kept = KEPT_FORMATS[detected.format];
  if (options.asReceived && kept && detected.bare && !detected.animated) {
    if (detected.width * detected.height <= ORIGINAL_PIXELS) {
      return withImageSlot(() => previewOnly(input, detected, { data: input, ...kept }));
    }
  }
  return withImageSlot(() => processImageNow(input, detected));
}

/** The same, if one of the process's image slots is free now; null, without processing it, if none is. */
export function processImageIfFree(
  input: Buffer,
  detected: Extract<Detected, { kind: "image" }>,
): Promise<ProcessedMedia> | null {
  return withFreeImageSlot(() => processImageNow(input, detected));
}

async function previewOnly(
  input: Buffer,
  detected: Extract<Detected, { kind: "image" }>,
  file: OutputFile,
): Promise<ProcessedMedia> {
  const size = shape(detected.width, detected.height);
  // A picture no larger than a preview is its own (stored once: storeProcessed).
  if (detected.width <= PREVIEW_SIZE && detected.height <= PREVIEW_SIZE) {
    return { file, preview: file, meta: { original: size, small: size }, blurhash: await blurhashOf(input) };
  }
  const preview = await previewOf(input, detected.alpha);
  return {
    file,
    preview: preview.file,
    meta: { original: size, small: preview.small },
    blurhash: preview.blurhash,
  };
}

async function processImageNow(input: Buffer, detected: Extract<Detected, { kind: "image" }>): Promise<ProcessedMedia> {
  const pixels = detected.width * detected.height;
  const scale = pixels > ORIGINAL_PIXELS ? Math.sqrt(ORIGINAL_PIXELS / pixels) : 1;
  let pipeline = sharp()(input, { limitInputPixels: false, animated: detected.animated }).rotate();
  if (scale < 1) {
    pipeline = pipeline.resize(Math.floor(detected.width * scale), Math.floor(detected.height * scale), {
      fit: "fill",
      kernel: ORIGINAL_KERNEL,
    });
  }
  const file = await encodeOriginal(pipeline, detected);
  // The preview is made from the re-encoded original when it is a still JPEG: upright already, and
  // a smaller file to decode (at a quarter of its size) than the upload.
  const jpeg = file.contentType === "image/jpeg";
  const preview = await previewOf(jpeg ? file.data : input, jpeg ? false : detected.alpha);
  return {
    file,
    preview: preview.file,
    meta: { original: shape(file.width, file.height), small: preview.small },
    blurhash: preview.blurhash,
  };
}

async function encodeOriginal(p: Sharp, d: Extract<Detected, { kind: "image" }>) {
  const out = async (s: Sharp, extension: string, contentType: string) => {
    const { data, info } = await s.toBuffer({ resolveWithObject: true });
    // An animated image's height is that of all its frames.
    const height = d.animated ? (info.pageHeight ?? info.height) : info.height;
    return { data, extension, contentType, width: info.width, height };
  };
  switch (d.format) {
    case "jpeg":
      return out(p.jpeg({ ...JPEG, quality: 85 }), "jpg", "image/jpeg");
    case "webp":
      return out(p.webp({ quality: 85 }), "webp", "image/webp");
    case "gif":
      // An animated GIF only stays one when there is no ffmpeg to make it a video.
      return d.animated ? out(p.gif(), "gif", "image/gif") : out(p.png(), "png", "image/png");
    case "png":
      return out(p.png(), "png", "image/png");
    default:
      return out(p.jpeg({ ...JPEG, quality: 85 }), "jpg", "image/jpeg");
  }
}

const firstStream = (p: Probe, type: string): ProbeStream | undefined =>
  p.streams.find((s) => s.codec_type === type && !(type === "video" && isCoverArt(s)));
/** An MP3's or M4A's embedded cover is a "video" stream of one picture. */
const isCoverArt = (s: ProbeStream) => ["mjpeg", "png", "bmp"].includes(s.codec_name);

/**
 * The containers accepted for video and audio (ffprobe's names). ffmpeg reads far more (images,
 * playlists, subtitles, SVG…), none of which an upload may be.
 */
const CONTAINERS = new Set([
  "mov",
  "mp4",
  "m4a",
  "3gp",
  "3g2",
  "mj2",
  "matroska",
  "webm",
  "avi",
  "ogg",
  "mp3",
  "wav",
  "flac",
  "aac",
  "asf",
]);

/** Tells video from audio from garbage by what ffprobe finds in the file. */
export async function detectAudioVideo(
  f: Ffmpeg,
  input: Buffer,
): Promise<Extract<Detected, { kind: "video" | "audio" }> | null> {
  return withTempDir(async (dir) => {
    const path = join(dir, "upload");
    await writeFile(path, input);
    const p = await probe(f, path);
    if (!p?.format.format_name.split(",").some((name) => CONTAINERS.has(name))) return null;
    if (firstStream(p, "video")) return { kind: "video", probe: p };
    if (firstStream(p, "audio")) return { kind: "audio", probe: p };
    return null;
  });
}

const fps = (rate: string | undefined) => {
  const [n, d] = (rate ?? "0/1").split("/").map(Number);
  return d ? n! / d : 0;
};

/** Mastodon's limits on a video: pixels and frame rate. */
export function checkVideo(p: Probe, limits: Limits): void {
  const v = firstStream(p, "video");
  if (!v) return;
  if ((v.width ?? 0) * (v.height ?? 0) > limits.videoMatrix) {
    throw unprocessable(`Validation failed: File dimensions are too large (at most ${limits.videoMatrix} pixels)`);
  }
  if (fps(v.avg_frame_rate) > limits.videoFrameRate) {
    throw unprocessable(
      `Validation failed: File frame rate is too high (at most ${limits.videoFrameRate} frames a second)`,
    );
  }
}

async function withTempDir<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), "rookery-media-"));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function avMeta(p: Probe): Record<string, number | string> {
  const out: Record<string, number | string> = {};
  const duration = Number(p.format.duration);
  if (duration > 0) out.duration = Math.round(duration * 100) / 100;
  const bitrate = Number(p.format.bit_rate);
  if (bitrate > 0) out.bitrate = bitrate;
  const v = firstStream(p, "video");
  if (v?.width && v.height) {
    Object.assign(out, { width: v.width, height: v.height, frame_rate: v.avg_frame_rate ?? v.r_frame_rate ?? "0/1" });
  }
  return out;
}

const EVEN = "scale=trunc(iw/2)*2:trunc(ih/2)*2";
const H264 = ["-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-pix_fmt", "yuv420p", "-vf", EVEN];

/**
 * Video and animated GIFs become H.264/AAC MP4 (a GIF silent, as Mastodon's gifv), kept as they are
 * when they already are; audio becomes MP3 unless it is one. Video gets a poster frame.
 */
export async function processAudioVideo(f: Ffmpeg, input: Buffer, type: MediaType): Promise<ProcessedMedia> {
  return withTempDir(async (dir) => {
    const src = join(dir, "upload");
    await writeFile(src, input);
    const before = await probe(f, src);
    if (!before) throw invalidFile();
    if (type === "audio") {
      const isMp3 = before.format.format_name.split(",").includes("mp3");
      const out = join(dir, "out.mp3");
      if (isMp3) await transcode(f, ["-i", src, "-map", "0:a:0", "-c:a", "copy", "-f", "mp3", out]);
      else await transcode(f, ["-i", src, "-vn", "-c:a", "libmp3lame", "-q:a", "2", "-f", "mp3", out]);
      const after = (await probe(f, out)) ?? before;
      return {
        file: { data: await readFile(out), extension: "mp3", contentType: "audio/mpeg" },
        preview: null,
        meta: { original: avMeta(after) },
        blurhash: null,
      };
    }
    const out = join(dir, "out.mp4");
    const v = firstStream(before, "video");
    const a = firstStream(before, "audio");
    const ready =
      type === "video" &&
      before.format.format_name.includes("mp4") &&
      v?.codec_name === "h264" &&
      v.pix_fmt === "yuv420p" &&
      (!a || a.codec_name === "aac");
    const audio = type === "gifv" || !a ? ["-an"] : ["-c:a", "aac", "-b:a", "128k"];
    const codecs = ready ? ["-c", "copy"] : [...H264, ...audio];
    await transcode(f, [
      "-i",
      src,
      "-map",
      "0:v:0",
      ...(type === "gifv" || !a ? [] : ["-map", "0:a:0"]),
      ...codecs,
      "-movflags",
      "+faststart",
      "-f",
      "mp4",
      out,
    ]);
    const poster = join(dir, "poster.png");
    await transcode(f, ["-i", out, "-frames:v", "1", "-f", "image2", "-c:v", "png", poster]);
    const after = (await probe(f, out)) ?? before;
    const preview = await previewOf(await readFile(poster));
    return {
      file: { data: await readFile(out), extension: "mp4", contentType: "video/mp4" },
      preview: preview.file,
      meta: { original: avMeta(after), small: preview.small },
      blurhash: preview.blurhash,
    };
  });
}

const IMAGE_TYPES = ["image/jpeg", "image/png", "image/gif", "image/webp", "image/avif"];
const AUDIO_VIDEO_TYPES = [
  "video/mp4",
  "video/webm",
  "video/quicktime",
  "video/ogg",
  "audio/mpeg",
  "audio/mp3",
  "audio/ogg",
  "audio/opus",
  "audio/wav",
  "audio/x-wav",
  "audio/flac",
  "audio/aac",
  "audio/mp4",
  "audio/x-m4a",
  "audio/webm",
];

/** The types uploads may have here: images always, video and audio only with ffmpeg. */
export function supportedMimeTypes(withFfmpeg: boolean): string[] {
  return withFfmpeg ? [...IMAGE_TYPES, ...AUDIO_VIDEO_TYPES] : IMAGE_TYPES;
}
