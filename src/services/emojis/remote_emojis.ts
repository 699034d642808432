// Custom emojis of other servers. Their Notes and actors name the emojis they use in `Emoji` tags;
// each is kept per server and shortcode (the image a later tag names replaces the earlier one),
// shown from our storage once copied there, by its remote URL until then. A remote status or account
// shows the emojis of its own server that its text uses, as Mastodon looks them up (by shortcode
// and the author's domain), unless staff disabled them (a later tag naming one does not enable it
// again).
import type { Selectable } from "kysely";
import type { Db } from "../../db/index.ts";
import type { RemoteEmojisTable } from "../../db/schema.ts";
import { SHORTCODE, shortcodesIn } from "../../domain/custom_emojis.ts";
import { newId } from "../../domain/ids.ts";
import { mediaStorage } from "../../media/storage.ts";
import type { Runtime } from "../../runtime.ts";

export type RemoteEmoji = Selectable<RemoteEmojisTable>;

export interface EmojiTag {
  shortcode: string;
  /** The Emoji's id. */
  uri: string | null;
  imageUrl: string;
}

/** More tags than any post or profile needs are ignored. */
const MAX_TAGS = 50;

/**
 * Keeps the emojis `tags` name, for the server `domain`, and has each new or changed one copied into
 * our storage (src/services/media/remote_cache.ts); the copy of an image no longer named goes.
 */
export async function saveRemoteEmojis(rt: Runtime, domain: string, tags: EmojiTag[]): Promise<void> {
  const valid = tags
    .slice(0, MAX_TAGS)
    .filter((tag) => SHORTCODE.test(tag.shortcode) && /^https?:\/\//.test(tag.imageUrl));
  if (valid.length === 0) return;
  // Every post that uses an emoji names it again: only what is new or changed is written.
  const known = await rt.db
    .selectFrom("remote_emojis")
    .select(["shortcode", "image_url", "image_file", "static_file"])
    .where("domain", "=", domain)
    .where(
      "shortcode",
      "in",
      valid.map((tag) => tag.shortcode),
    )
    .execute();
  const current = new Map(known.map((row) => [row.shortcode, row]));
  const now = new Date();
  const storage = mediaStorage(rt.config);
  for (const tag of valid) {
    const before = current.get(tag.shortcode);
    if (before?.image_url === tag.imageUrl) continue;
    const saved = await rt.db
      .insertInto("remote_emojis")
      .values({
        id: newId(),
        domain,
        shortcode: tag.shortcode,
        uri: tag.uri,
        image_url: tag.imageUrl,
        updated_at: now,
        created_at: now,
      })
      .onConflict((oc) =>
        oc.columns(["domain", "shortcode"]).doUpdateSet((eb) => ({
          uri: eb.ref("excluded.uri"),
          image_url: eb.ref("excluded.image_url"),
          image_file: null,
          static_file: null,
          updated_at: now,
        })),
      )
      .returning("id")
      .executeTakeFirstOrThrow();
    for (const key of [before?.image_file, before?.static_file]) if (key) await storage.delete(key);
    await rt.queue.enqueue("media.cache", { emojiId: saved.id }, { unique: true });
  }
}

/** The emojis of each server that the texts of its statuses or accounts use: domain → shortcode → emoji. */
export async function remoteEmojisUsed(
  db: Db,
  uses: { domain: string | null; texts: string[] }[],
): Promise<Map<string, Map<string, RemoteEmoji>>> {
  const found = new Map<string, Map<string, RemoteEmoji>>();
  const domains = new Set<string>();
  const shortcodes = new Set<string>();
  for (const use of uses) {
    if (use.domain === null) continue;
    const used = shortcodesIn(...use.texts);
    if (used.length === 0) continue;
    domains.add(use.domain);
    for (const s of used) shortcodes.add(s);
  }
  if (domains.size === 0) return found;
  const rows = await db
    .selectFrom("remote_emojis")
    .selectAll()
    .where("domain", "in", [...domains])
    .where("shortcode", "in", [...shortcodes])
    .where("disabled", "=", false)
    .execute();
  for (const row of rows) {
    const byShortcode = found.get(row.domain) ?? new Map<string, RemoteEmoji>();
    byShortcode.set(row.shortcode, row);
    found.set(row.domain, byShortcode);
  }
  return found;
}
