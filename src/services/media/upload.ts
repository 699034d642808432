// Uploading, describing and deleting media (POST /api/v1 and /api/v2/media, PUT and DELETE
// /api/v1/media/:id). On /api/v2/media, small images are processed in the request while the
// process has an image slot free; photos that must be scaled down, images that arrive while every
// slot is busy, larger files, animated GIFs, video and audio are kept as uploaded and processed by
// the `media.process` job, and the upload is answered (202) once its bytes are stored.
import type { Config } from "../../config.ts";
import type { MediaMeta, MediaType } from "../../db/schema.ts";
import { ApiError, unprocessable } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import { randomToken } from "../../domain/secrets.ts";
import type { Upload } from "../../domain/uploads.ts";
import { findFfmpeg, withTranscodeSlot } from "../../media/ffmpeg.ts";
import {
  checkVideo,
  type Detected,
  detectAudioVideo,
  detectImage,
  invalidFile,
  looksLikeAudioOrVideo,
  ORIGINAL_PIXELS,
  type ProcessedMedia,
  previewOf,
  processAudioVideo,
  processImage,
  processImageIfFree,
} from "../../media/process.ts";
import { mediaStorage, PENDING_PREFIX } from "../../media/storage.ts";
import type { Runtime } from "../../runtime.ts";
import { type MediaRow, ownMedia } from "./rows.ts";

declare module "../../jobs/queue.ts" {
  interface JobPayloads {
    /** Processes an upload kept as it came (large images, animated GIFs, video, audio). */
    "media.process": { mediaId: string };
  }
}

/** Images up to this size (and ORIGINAL_PIXELS, past which they are scaled down) may be processed while the upload waits. */
export const SYNC_IMAGE_BYTES = 8 * 1024 * 1024;

export interface MediaInput {
  file: Upload;
  thumbnail?: Upload | null;
  description?: string;
  focus?: string;
}

const MB = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;

export function checkDescription(rt: Runtime, description: string | undefined): string | null | undefined {
  if (description === undefined) return undefined;
  const limit = rt.config.limits.descriptionChars;
  if ([...description].length > limit) {
    throw unprocessable(`Validation failed: Description is too long (maximum is ${limit} characters)`);
  }
  return description.trim() === "" ? null : description;
}

/** Mastodon's focal point: "x,y" with both in [-1, 1]. */
export function parseFocus(focus: string | undefined): { x: number; y: number } | undefined {
  if (focus === undefined || focus.trim() === "") return undefined;
  const parts = focus.split(",").map((p) => p.trim());
  const [x, y] = parts.map(Number);
  const inRange = (n: number | undefined) => n !== undefined && Number.isFinite(n) && n >= -1 && n <= 1;
  if (parts.length !== 2 || parts.some((p) => p === "") || !inRange(x) || !inRange(y)) {
    throw unprocessable("Validation failed: Focus must be two numbers between -1.0 and 1.0, as x,y");
  }
  return { x: x!, y: y! };
}

export interface Judged {
  type: MediaType;
  detected: Detected;
}

/** What the upload is, by its bytes, within the limits for its kind. */
export async function judge(config: Config, bytes: Buffer): Promise<Judged> {
  const l = config.limits;
  const image = await detectImage(bytes);
  if (image) {
    if (bytes.byteLength > l.imageSize) {
      throw unprocessable(`Validation failed: File file size must be less than ${MB(l.imageSize)}`);
    }
    if (image.width * image.height > l.imageMatrix) {
      throw unprocessable(`Validation failed: File dimensions are too large (at most ${l.imageMatrix} pixels)`);
    }
    // Without ffmpeg an animated GIF stays an animated image.
    const gifv = image.animated && image.format === "gif" && findFfmpeg(config) !== null;
    return { type: gifv ? "gifv" : "image", detected: image };
  }
  const ffmpeg = findFfmpeg(config);
  if (!ffmpeg) {
    if (looksLikeAudioOrVideo(bytes)) {
      throw unprocessable("Validation failed: Video and audio cannot be processed on this server (no ffmpeg)");
    }
    throw invalidFile();
  }
  const av = await detectAudioVideo(ffmpeg, bytes);
  if (!av) throw invalidFile();
  checkVideo(av.probe, l);
  return { type: av.kind, detected: av };
}

/** Processes judged bytes; `asReceived` keeps an original that needs no change (processImage). */
export async function processBytes(
  rt: Runtime,
  type: MediaType,
  bytes: Buffer,
  detected?: Detected,
  options: { asReceived?: boolean } = {},
): Promise<ProcessedMedia> {
  if (type === "image") {
    const image = detected?.kind === "image" ? detected : await detectImage(bytes);
    if (!image) throw invalidFile();
    return processImage(bytes, image, options);
  }
  const ffmpeg = findFfmpeg(rt.config);
  if (!ffmpeg) throw unprocessable("Validation failed: Video and audio cannot be processed on this server (no ffmpeg)");
  return withTranscodeSlot(rt.config.media.transcodes, () => processAudioVideo(ffmpeg, bytes, type));
}

/**
 * An upload of /api/v2/media processed while it waits: a still image that needs no scaling down,
 * when an image slot is free now. Null for anything else: a burst of photos then waits for the CPU
 * in the job queue rather than in requests (ten 12-megapixel photos at once took 5–7 s to answer on
 * a loaded 2-core machine).
 */
function processedAtOnce(type: MediaType, bytes: Buffer, detected: Detected): Promise<ProcessedMedia> | null {
  if (type !== "image" || detected.kind !== "image" || bytes.byteLength > SYNC_IMAGE_BYTES) return null;
  if (detected.width * detected.height > ORIGINAL_PIXELS) return null;
  return processImageIfFree(bytes, detected);
}

/** Stores what processing made under the row's random folder; returns the columns that name it. */
export async function storeProcessed(rt: Runtime, folder: string, p: ProcessedMedia, keepPreview: boolean) {
  const storage = mediaStorage(rt.config);
  const fileKey = `media_attachments/${folder}/original.${p.file.extension}`;
  await storage.put(fileKey, p.file.data, p.file.contentType);
  let previewKey: string | null = null;
  if (p.preview === p.file) previewKey = fileKey;
  else if (p.preview && !keepPreview) {
    previewKey = `media_attachments/${folder}/small.${p.preview.extension}`;
    await storage.put(previewKey, p.preview.data, p.preview.contentType);
  }
  return {
    file_key: fileKey,
    content_type: p.file.contentType,
    file_size: p.file.data.byteLength,
    ...(keepPreview ? {} : { preview_key: previewKey, blurhash: p.blurhash }),
  };
}

const folderOf = (row: { upload_key: string | null; file_key: string | null }) =>
  (row.upload_key ?? row.file_key ?? "").split("/").at(-2) ?? randomToken(12);

/** A custom preview (for audio and video, or to replace an image's): stored under a fresh name. */
async function storeThumbnail(rt: Runtime, folder: string, thumbnail: Upload) {
  const bytes = thumbnail.bytes;
  const image = await detectImage(bytes);
  if (!image) {
    throw unprocessable(
      "Validation failed: Thumbnail content type is invalid, Thumbnail could not be read as an image",
    );
  }
  const l = rt.config.limits;
  if (bytes.byteLength > l.imageSize || image.width * image.height > l.imageMatrix) {
    throw unprocessable("Validation failed: Thumbnail is too large");
  }
  const preview = await previewOf(bytes, image.alpha);
  const key = `media_attachments/${folder}/thumbnail-${randomToken(6)}.${preview.file.extension}`;
  await mediaStorage(rt.config).put(key, preview.file.data, preview.file.contentType);
  return { key, small: preview.small, blurhash: preview.blurhash };
}

/**
 * Creates a media attachment. `wait` (POST /api/v1/media) processes everything before answering;
 * otherwise only what processedAtOnce takes is, and the rest is left to a job.
 */
export async function createMedia(rt: Runtime, accountId: string, input: MediaInput, wait: boolean): Promise<MediaRow> {
  const l = rt.config.limits;
  if (input.file.size > Math.max(l.imageSize, l.videoSize)) {
    throw unprocessable(
      `Validation failed: File file size must be less than ${MB(Math.max(l.imageSize, l.videoSize))}`,
    );
  }
  const description = checkDescription(rt, input.description) ?? null;
  const focus = parseFocus(input.focus);
  const bytes = input.file.bytes;
  const { type, detected } = await judge(rt.config, bytes);
  if (type !== "image" && bytes.byteLength > l.videoSize) {
    throw unprocessable(`Validation failed: File file size must be less than ${MB(l.videoSize)}`);
  }
  const id = newId();
  const folder = randomToken(12);
  const now = new Date();
  const thumbnail = input.thumbnail ? await storeThumbnail(rt, folder, input.thumbnail) : null;
  const meta: MediaMeta = { ...(focus ? { focus } : {}), ...(thumbnail ? { small: thumbnail.small } : {}) };
  const base = {
    id,
    account_id: accountId,
    status_id: null,
    position: null,
    scheduled_status_id: null,
    type,
    description,
    remote_url: null,
    preview_key: thumbnail?.key ?? null,
    blurhash: thumbnail?.blurhash ?? null,
    created_at: now,
    updated_at: now,
  };
  const processing = wait ? processBytes(rt, type, bytes, detected) : processedAtOnce(type, bytes, detected);
  if (processing) {
    const processed = await processing;
    const stored = await storeProcessed(rt, folder, processed, thumbnail !== null);
    await rt.db
      .insertInto("media_attachments")
      .values({
        ...base,
        ...stored,
        processing: "done",
        upload_key: null,
        meta: JSON.stringify({ ...processed.meta, ...meta }),
      })
      .execute();
  } else {
    const uploadKey = `${PENDING_PREFIX}${folder}/upload`;
    await mediaStorage(rt.config).put(uploadKey, bytes, "application/octet-stream");
    await rt.db.transaction().execute(async (trx) => {
      await trx
        .insertInto("media_attachments")
        .values({
          ...base,
          processing: "pending",
          upload_key: uploadKey,
          file_key: null,
          content_type: null,
          file_size: bytes.byteLength,
          meta: JSON.stringify(meta),
        })
        .execute();
      await rt.queue.enqueue("media.process", { mediaId: id }, { maxAttempts: 3 }, trx);
    });
  }
  return ownMedia(rt, accountId, id);
}

/** Job: processes a pending upload. Safe to run twice: a row no longer pending is left alone. */
export async function processPendingMedia(rt: Runtime, { mediaId }: { mediaId: string }): Promise<void> {
  const row = await rt.db.selectFrom("media_attachments").selectAll().where("id", "=", mediaId).executeTakeFirst();
  if (row?.processing !== "pending" || !row.upload_key) return;
  const storage = mediaStorage(rt.config);
  const bytes = await storage.get(row.upload_key);
  let processed: ProcessedMedia;
  try {
    processed = await processBytes(rt, row.type, bytes);
  } catch (error) {
    // A file that cannot be processed will not be processable on a retry either.
    await rt.db
      .updateTable("media_attachments")
      .set({ processing: "failed", updated_at: new Date() })
      .where("id", "=", mediaId)
      .execute();
    await storage.delete(row.upload_key);
    if (error instanceof ApiError) return;
    throw error;
  }
  const stored = await storeProcessed(rt, folderOf(row), processed, row.preview_key !== null);
  const meta = { ...processed.meta, ...row.meta, original: processed.meta.original };
  if (row.preview_key === null && processed.meta.small) meta.small = processed.meta.small;
  await rt.db
    .updateTable("media_attachments")
    .set({ ...stored, processing: "done", upload_key: null, meta: JSON.stringify(meta), updated_at: new Date() })
    .where("id", "=", mediaId)
    .where("processing", "=", "pending")
    .execute();
  await storage.delete(row.upload_key);
}

export interface MediaChanges {
  description?: string;
  focus?: string;
  thumbnail?: Upload | null;
}

/** PUT /api/v1/media/:id: description, focus and thumbnail of an upload not yet attached. */
export async function updateMedia(rt: Runtime, accountId: string, id: string, c: MediaChanges): Promise<MediaRow> {
  const row = await ownMedia(rt, accountId, id, { unattached: true });
  const description = checkDescription(rt, c.description);
  const focus = parseFocus(c.focus);
  const thumbnail = c.thumbnail ? await storeThumbnail(rt, folderOf(row), c.thumbnail) : null;
  const meta: MediaMeta = { ...row.meta };
  if (focus) meta.focus = focus;
  if (thumbnail) meta.small = thumbnail.small;
  await rt.db
    .updateTable("media_attachments")
    .set({
      ...(description !== undefined ? { description } : {}),
      ...(thumbnail ? { preview_key: thumbnail.key, blurhash: thumbnail.blurhash } : {}),
      meta: JSON.stringify(meta),
      updated_at: new Date(),
    })
    .where("id", "=", id)
    .execute();
  if (thumbnail && row.preview_key) await mediaStorage(rt.config).delete(row.preview_key);
  return ownMedia(rt, accountId, id, { unattached: true });
}

/** DELETE /api/v1/media/:id: only an upload no status (or scheduled status) uses. */
export async function deleteMedia(rt: Runtime, accountId: string, id: string): Promise<void> {
  const row = await ownMedia(rt, accountId, id);
  if (row.status_id !== null || row.scheduled_status_id !== null) {
    throw unprocessable("Media attachment is currently used by a status");
  }
  await removeMediaRows(rt, [row]);
}

/** Deletes media rows, then their files (a file left behind by a crash is only wasted space). */
export async function removeMediaRows(rt: Runtime, rows: MediaRow[]): Promise<void> {
  if (rows.length === 0) return;
  await rt.db
    .deleteFrom("media_attachments")
    .where(
      "id",
      "in",
      rows.map((r) => r.id),
    )
    .execute();
  const storage = mediaStorage(rt.config);
  for (const r of rows) {
    for (const key of [r.upload_key, r.file_key, r.preview_key]) if (key) await storage.delete(key);
  }
}
