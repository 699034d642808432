// Other servers' media kept on this server's storage, as Mastodon keeps them: the attachments of
// remote statuses, the avatars and headers of remote accounts and remote custom emojis are
// downloaded by the `media.cache` job (src/media/downloads.ts), judged and processed by the same
// code as uploads (our own original, preview and blurhash), and served from our storage from then
// on. Nothing is downloaded from a server whose media are rejected. What could not be fetched is
// shown by its remote URL; an attachment that is not kept (dropped by retention, or a download that
// may work later) is fetched when first asked for (src/api/media_proxy.ts).
import type { Config } from "../../config.ts";
import type { MediaType } from "../../db/schema.ts";
import { ApiError } from "../../domain/errors.ts";
import { randomToken } from "../../domain/secrets.ts";
import { Upload } from "../../domain/uploads.ts";
import { logger } from "../../log.ts";
import { DownloadError, download } from "../../media/downloads.ts";
import { EMOJI_MAX_BYTES, EmojiImageError, processEmojiImage } from "../../media/emoji_images.ts";
import { type ProfileImageKind, processProfileImage } from "../../media/images.ts";
import { mediaStorage } from "../../media/storage.ts";
import type { Runtime } from "../../runtime.ts";
import { publishEvent } from "../../streaming/events.ts";
import { removeProfileImageFiles, storeProfileImage } from "../accounts/profile.ts";
import { domainPolicy } from "../moderation/federation_policy.ts";
import type { MediaRow } from "./rows.ts";
import { judge, processBytes, storeProcessed } from "./upload.ts";

declare module "../../jobs/queue.ts" {
  interface JobPayloads {
    /** Copies a remote status's attachments, a remote account's avatar and header, or a remote emoji. */
    "media.cache": { statusId: string } | { accountId: string } | { emojiId: string };
  }
}

const log = logger("media");

/** Mastodon's limit on remote avatars and headers, as on local ones. */
const PROFILE_IMAGE_BYTES = 8 * 1024 * 1024;

/** Whether media from `url`, posted by an account of `domain`, may be downloaded at all. */
async function mayDownload(rt: Runtime, domain: string | null, url: string): Promise<boolean> {
  if ((await domainPolicy(rt, domain)).rejectMedia) return false;
  let host: string;
  try {
    host = new URL(url).host;
  } catch {
    return false;
  }
  const policy = await domainPolicy(rt, host);
  return !policy.rejectMedia && !policy.refused;
}

/** The most bytes read of an attachment: the upload limit of what its server says it is. */
function attachmentCap(config: Config, type: MediaType): number {
  const { imageSize, videoSize } = config.limits;
  return type === "image" ? imageSize : Math.max(imageSize, videoSize);
}

/** Job: whichever kind of media the payload names. */
export async function cacheMediaJob(
  rt: Runtime,
  payload: { statusId: string } | { accountId: string } | { emojiId: string },
): Promise<void> {
  if ("statusId" in payload) await cacheStatusMedia(rt, payload.statusId);
  else if ("accountId" in payload) await cacheProfileImages(rt, payload.accountId);
  else await cacheEmoji(rt, payload.emojiId);
}

/** The attachments of a remote status waiting for the cache, each downloaded once. */
async function cacheStatusMedia(rt: Runtime, statusId: string): Promise<void> {
  const rows = await rt.db
    .selectFrom("media_attachments")
    .selectAll()
    .where("status_id", "=", statusId)
    .where("remote_state", "=", "pending")
    .execute();
  await Promise.all(rows.map((row) => cacheAttachment(rt, row)));
}

/** Attachments being downloaded in this process, so that two requests for one fetch it once. */
const underWay = new Map<string, Promise<boolean>>();

/**
 * Downloads and processes one remote attachment into our storage; true when it is cached now.
 * A refusal (a rejected server, a private address, too large, not media) marks it "failed" for
 * good; a failure that may pass (a timeout, a server error) leaves it to be fetched on demand.
 */
export function cacheAttachment(rt: Runtime, row: MediaRow): Promise<boolean> {
  let work = underWay.get(row.id);
  if (!work) {
    work = cacheAttachmentNow(rt, row).finally(() => underWay.delete(row.id));
    underWay.set(row.id, work);
  }
  return work;
}

async function cacheAttachmentNow(rt: Runtime, row: MediaRow): Promise<boolean> {
  const url = row.remote_url;
  if (!url || row.remote_state === "cached" || row.remote_state === "failed") return row.remote_state === "cached";
  const mark = (state: "failed" | "lazy") =>
    rt.db
      .updateTable("media_attachments")
      .set({ remote_state: state })
      .where("id", "=", row.id)
      .where("remote_state", "!=", "cached")
      .execute();
  const author = await rt.db
    .selectFrom("accounts")
    .select("domain")
    .where("id", "=", row.account_id)
    .executeTakeFirst();
  if (!(await mayDownload(rt, author?.domain ?? null, url))) {
    await mark("failed");
    return false;
  }
  let processed: Awaited<ReturnType<typeof processBytes>>;
  let type: MediaType;
  try {
    const bytes = await download(rt.config, url, attachmentCap(rt.config, row.type));
    const judged = await judge(rt.config, bytes);
    type = judged.type;
    processed = await processBytes(rt, type, bytes, judged.detected, { asReceived: true });
  } catch (error) {
    const permanent = error instanceof ApiError || (error instanceof DownloadError && error.permanent);
    if (!permanent && !(error instanceof DownloadError)) throw error;
    log.info("Remote media {url} not cached: {error}", { url, error: String(error) });
    await mark(permanent ? "failed" : "lazy");
    return false;
  }
  const stored = await storeProcessed(rt, randomToken(12), processed, false);
  const meta = { ...processed.meta, ...(row.meta.focus ? { focus: row.meta.focus } : {}) };
  const updated = await rt.db
    .updateTable("media_attachments")
    .set({ ...stored, type, meta: JSON.stringify(meta), remote_state: "cached", updated_at: new Date() })
    .where("id", "=", row.id)
    .where("remote_state", "in", ["pending", "lazy"])
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) === 0) {
    // Deleted, or cached by another process meanwhile: these files are nobody's.
    await removeKeys(rt, [stored.file_key, stored.preview_key ?? null]);
    return false;
  }
  if (row.status_id) await publishEvent(rt, "statuses.changed", { ids: [row.status_id] });
  return true;
}

async function removeKeys(rt: Runtime, keys: (string | null)[]): Promise<void> {
  const storage = mediaStorage(rt.config);
  for (const key of keys) if (key) await storage.delete(key);
}

type ProfileImageColumns = {
  avatar_remote_url: string | null;
  avatar_file: string | null;
  header_remote_url: string | null;
  header_file: string | null;
};

/**
 * What an actor's update does to its cached avatar and header: a copy of an image the actor no
 * longer names is dropped (its files `replaced`); `fetch` when an image it names is not cached.
 */
export function profileImagesAfter(
  before: ProfileImageColumns,
  after: Pick<ProfileImageColumns, "avatar_remote_url" | "header_remote_url">,
) {
  const columns: { avatar_file?: null; header_file?: null } = {};
  const replaced: string[] = [];
  let fetch = false;
  for (const kind of ["avatar", "header"] as const) {
    const file = before[`${kind}_file`];
    const stale = before[`${kind}_remote_url`] !== after[`${kind}_remote_url`];
    if (file && stale) {
      columns[`${kind}_file`] = null;
      replaced.push(file);
    }
    if (after[`${kind}_remote_url`] && (!file || stale)) fetch = true;
  }
  return { columns, replaced, fetch };
}

/** A remote account's avatar and header, each unless cached already. */
async function cacheProfileImages(rt: Runtime, accountId: string): Promise<void> {
  const account = await rt.db
    .selectFrom("accounts")
    .select(["domain", "avatar_remote_url", "avatar_file", "header_remote_url", "header_file", "suspended_at"])
    .where("id", "=", accountId)
    .executeTakeFirst();
  if (!account || account.domain === null || account.suspended_at !== null) return;
  let changed = false;
  for (const kind of ["avatar", "header"] as const) {
    const url = account[`${kind}_remote_url`];
    if (!url || account[`${kind}_file`] || !(await mayDownload(rt, account.domain, url))) continue;
    changed = (await cacheProfileImage(rt, accountId, kind, url)) || changed;
  }
  if (changed) await publishEvent(rt, "account.changed", { id: accountId });
}

async function cacheProfileImage(rt: Runtime, accountId: string, kind: ProfileImageKind, url: string) {
  let key: string;
  try {
    const bytes = await download(rt.config, url, PROFILE_IMAGE_BYTES);
    key = await storeProfileImage(rt, accountId, kind, await processProfileImage(new Upload(bytes, "", ""), kind));
  } catch (error) {
    if (!(error instanceof ApiError || error instanceof DownloadError)) throw error;
    // Shown by its remote URL; the account's next refresh tries again.
    log.info("Remote {kind} {url} not cached: {error}", { kind, url, error: String(error) });
    return false;
  }
  const column = kind === "avatar" ? "avatar_file" : "header_file";
  const updated = await rt.db
    .updateTable("accounts")
    .set({ [column]: key })
    .where("id", "=", accountId)
    .where(kind === "avatar" ? "avatar_remote_url" : "header_remote_url", "=", url)
    .where(column, "is", null)
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) > 0) return true;
  await removeProfileImageFiles(rt, [key]);
  return false;
}

/** A remote custom emoji, re-encoded as local ones are (at most 256 KB, 400×400, a still). */
async function cacheEmoji(rt: Runtime, emojiId: string): Promise<void> {
  const emoji = await rt.db.selectFrom("remote_emojis").selectAll().where("id", "=", emojiId).executeTakeFirst();
  if (!emoji || emoji.image_file || !(await mayDownload(rt, emoji.domain, emoji.image_url))) return;
  let image: Awaited<ReturnType<typeof processEmojiImage>>;
  try {
    image = await processEmojiImage(await download(rt.config, emoji.image_url, EMOJI_MAX_BYTES));
  } catch (error) {
    if (!(error instanceof EmojiImageError || error instanceof DownloadError)) throw error;
    log.info("Remote emoji {url} not cached: {error}", { url: emoji.image_url, error: String(error) });
    return;
  }
  const folder = `remote_emojis/${emoji.id}/${randomToken(8)}`;
  const files = { image_file: `${folder}.${image.extension}`, static_file: `${folder}.static.png` };
  const storage = mediaStorage(rt.config);
  await storage.put(files.image_file, image.data, `image/${image.extension}`);
  await storage.put(files.static_file, image.still, "image/png");
  const updated = await rt.db
    .updateTable("remote_emojis")
    .set(files)
    .where("id", "=", emoji.id)
    .where("image_url", "=", emoji.image_url)
    .where("image_file", "is", null)
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) === 0) await removeKeys(rt, [files.image_file, files.static_file]);
}
