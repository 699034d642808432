// This server's custom emojis: added, imported and removed by operators (`rookery emoji`), and
// looked up by shortcode whenever statuses, accounts and announcements are rendered. The lookup
// keeps every enabled emoji in memory for a minute, or until they change: the set is small and
// changes rarely (an operator's command in another process without Redis shows within that minute).
import { basename, extname } from "node:path";
import type { Selectable } from "kysely";
import type { Db } from "../../db/index.ts";
import type { CustomEmojisTable } from "../../db/schema.ts";
import { SHORTCODE, shortcodesIn } from "../../domain/custom_emojis.ts";
import { notFound, unprocessable } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import { lazy } from "../../lazy.ts";
import { EmojiImageError, processEmojiImage } from "../../media/emoji_images.ts";
import { mediaStorage } from "../../media/storage.ts";
import type { Runtime } from "../../runtime.ts";
import { cached, invalidate } from "../cache.ts";

export type CustomEmoji = Selectable<CustomEmojisTable>;

const FRESH_MS = 60_000;
const PREFIX = "emojis:";

/** What is computed from the emojis (the lookup, the prepared list) is kept a minute, or until they change. */
export const emojisCached = <T>(rt: Runtime, key: string, compute: () => Promise<T>) =>
  cached(rt, PREFIX + key, FRESH_MS, compute);

/** Drops what was computed from the emojis, in this process and (through the bus) every other. */
const emojisChanged = (rt: Runtime) => invalidate(rt, PREFIX);

/** For `rookery emoji import` only (src/lazy.ts). */
const tar = lazy<typeof import("tar")>("tar");

/** The enabled local emojis by shortcode. */
export function localEmojis(rt: Runtime): Promise<Map<string, CustomEmoji>> {
  return emojisCached(rt, "local", async () => {
    const rows = await rt.db
      .selectFrom("custom_emojis")
      .selectAll()
      .where("domain", "is", null)
      .where("disabled", "=", false)
      .orderBy("shortcode")
      .execute();
    return new Map(rows.map((r) => [r.shortcode, r]));
  });
}

/** The emojis of `emojis` (by shortcode: localEmojis, or one server's remote ones) that `texts` use, in the order first used. */
export function emojisIn<T>(emojis: ReadonlyMap<string, T> | undefined, ...texts: string[]): T[] {
  if (!emojis || emojis.size === 0) return [];
  return shortcodesIn(...texts)
    .map((s) => emojis.get(s))
    .filter((e): e is T => e !== undefined);
}

export interface NewEmoji {
  shortcode: string;
  image: Buffer;
  category?: string | null;
  unlisted?: boolean;
  /** Replace an emoji of that shortcode; otherwise it is refused. */
  overwrite?: boolean;
}

/** What else a change writes in its own transaction (the web admin's audit log). */
export type AlsoWrite = (trx: Db, emoji: CustomEmoji) => Promise<void>;

/** A category as stored: trimmed, null when blank. */
const categoryOf = (category: string | null | undefined) => category?.trim().slice(0, MAX_CATEGORY) || null;
const MAX_CATEGORY = 200;

export async function addEmoji(rt: Runtime, e: NewEmoji, also?: AlsoWrite): Promise<CustomEmoji> {
  if (!SHORTCODE.test(e.shortcode))
    throw unprocessable("Validation failed: Shortcode must be at least 2 characters: letters, digits and _");
  const existing = await rt.db
    .selectFrom("custom_emojis")
    .selectAll()
    .where("domain", "is", null)
    .where("shortcode", "=", e.shortcode)
    .executeTakeFirst();
  if (existing && !e.overwrite) throw unprocessable("Validation failed: Shortcode has already been taken");
  const image = await processEmojiImage(e.image).catch((error) => {
    throw error instanceof EmojiImageError ? unprocessable(`Validation failed: Image ${error.message}`) : error;
  });
  const id = newId();
  const now = new Date();
  const storage = mediaStorage(rt.config);
  const row: CustomEmoji = {
    id,
    shortcode: e.shortcode,
    domain: null,
    image_file: `custom_emojis/${id}/${e.shortcode}.${image.extension}`,
    static_file: `custom_emojis/${id}/${e.shortcode}.static.png`,
    category: categoryOf(e.category),
    visible_in_picker: !e.unlisted,
    disabled: false,
    created_at: now,
    updated_at: now,
  };
  await storage.put(row.image_file, image.data, `image/${image.extension}`);
  await storage.put(row.static_file, image.still, "image/png");
  await rt.db.transaction().execute(async (trx) => {
    if (existing) await trx.deleteFrom("custom_emojis").where("id", "=", existing.id).execute();
    await trx.insertInto("custom_emojis").values(row).execute();
    await also?.(trx, row);
  });
  if (existing) await removeFiles(rt, existing);
  await emojisChanged(rt);
  return row;
}

async function removeFiles(rt: Runtime, e: CustomEmoji): Promise<void> {
  const storage = mediaStorage(rt.config);
  await storage.delete(e.image_file);
  await storage.delete(e.static_file);
}

export async function removeEmoji(rt: Runtime, shortcode: string, also?: AlsoWrite): Promise<void> {
  const row = await rt.db.transaction().execute(async (trx) => {
    const removed = await trx
      .deleteFrom("custom_emojis")
      .where("domain", "is", null)
      .where("shortcode", "=", shortcode)
      .returningAll()
      .executeTakeFirst();
    if (removed) await also?.(trx, removed);
    return removed;
  });
  if (!row) throw notFound();
  await removeFiles(rt, row);
  await emojisChanged(rt);
}

export interface EmojiChanges {
  category?: string | null;
  visibleInPicker?: boolean;
  disabled?: boolean;
}

/** Changes a local emoji's category, its place in the picker, or whether it is shown at all. */
export async function updateEmoji(rt: Runtime, id: string, c: EmojiChanges, also?: AlsoWrite): Promise<CustomEmoji> {
  const values = {
    ...(c.category !== undefined ? { category: categoryOf(c.category) } : {}),
    ...(c.visibleInPicker !== undefined ? { visible_in_picker: c.visibleInPicker } : {}),
    ...(c.disabled !== undefined ? { disabled: c.disabled } : {}),
    updated_at: new Date(),
  };
  const row = await rt.db.transaction().execute(async (trx) => {
    const changed = await trx
      .updateTable("custom_emojis")
      .set(values)
      .where("id", "=", id)
      .where("domain", "is", null)
      .returningAll()
      .executeTakeFirst();
    if (changed) await also?.(trx, changed);
    return changed;
  });
  if (!row) throw notFound();
  await emojisChanged(rt);
  return row;
}

/** Every local emoji, for operators (disabled ones too). */
export function listEmojis(rt: Runtime): Promise<CustomEmoji[]> {
  return rt.db.selectFrom("custom_emojis").selectAll().where("domain", "is", null).orderBy("shortcode").execute();
}

export interface ImportResult {
  added: string[];
  skipped: { name: string; reason: string }[];
}

const IMAGE_FILE = /\.(png|gif|webp)$/i;

/**
 * `tootctl emoji import`: every PNG, GIF or WebP file of a tar.gz archive becomes an emoji named
 * after the file; shortcodes already taken are skipped unless `overwrite`.
 */
export async function importEmojis(
  rt: Runtime,
  archive: string,
  options: Omit<NewEmoji, "shortcode" | "image"> & { prefix?: string; suffix?: string },
): Promise<ImportResult> {
  const files: { name: string; data: Buffer }[] = [];
  await tar().list({
    file: archive,
    onReadEntry(entry) {
      const name = basename(entry.path);
      if (entry.type !== "File" || !IMAGE_FILE.test(name) || name.startsWith(".")) {
        entry.resume();
        return;
      }
      const chunks: Buffer[] = [];
      entry.on("data", (c: Buffer) => chunks.push(c));
      entry.on("end", () => files.push({ name, data: Buffer.concat(chunks) }));
    },
  });
  const result: ImportResult = { added: [], skipped: [] };
  for (const f of files) {
    const shortcode = `${options.prefix ?? ""}${basename(f.name, extname(f.name))}${options.suffix ?? ""}`;
    try {
      await addEmoji(rt, { ...options, shortcode, image: f.data });
      result.added.push(shortcode);
    } catch (error) {
      result.skipped.push({ name: f.name, reason: (error as Error).message });
    }
  }
  return result;
}
