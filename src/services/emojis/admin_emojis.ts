// Custom emojis as staff manage them (Mastodon's Admin::CustomEmojisController): this server's
// (uploaded, given a category, listed in or left out of the picker, enabled or disabled, deleted)
// and other servers' (disabled or deleted, or copied to this server). The files and the rules are
// custom_emojis.ts's, which `rookery emoji` uses too; each change is also written to the audit log.
import type { Db } from "../../db/index.ts";
import { contains, startsWith } from "../../db/like.ts";
import { type Page, type PageResult, paginate } from "../../db/paginate.ts";
import { notFound, unprocessable } from "../../domain/errors.ts";
import { isId } from "../../domain/ids.ts";
import { EMOJI_MAX_BYTES } from "../../media/emoji_images.ts";
import { FetchError } from "../../net/fetch.ts";
import { outgoing } from "../../net/outgoing.ts";
import type { Runtime } from "../../runtime.ts";
import { logAction } from "../moderation/audit_log.ts";
import { requirePermission, type Staff } from "../moderation/staff.ts";
import {
  addEmoji,
  type CustomEmoji,
  type EmojiChanges,
  type NewEmoji,
  removeEmoji,
  updateEmoji,
} from "./custom_emojis.ts";
import type { RemoteEmoji } from "./remote_emojis.ts";

export interface EmojiFilter {
  /** Part of the shortcode. */
  shortcode?: string;
  /** Remote emojis only: the start of their server's domain. */
  domain?: string;
}

const FETCH_TIMEOUT_MS = 10_000;

const logged =
  (actor: Staff, action: string) => (trx: Db, emoji: { id: string; shortcode: string; domain: string | null }) =>
    logAction(trx, actor, {
      action,
      targetType: "CustomEmoji",
      targetId: emoji.id,
      identifier: emoji.domain ? `:${emoji.shortcode}@${emoji.domain}:` : `:${emoji.shortcode}:`,
    });

export function listLocalEmojis(
  rt: Runtime,
  actor: Staff,
  f: EmojiFilter,
  page: Page,
): Promise<PageResult<CustomEmoji>> {
  requirePermission(actor, "manageCustomEmojis");
  let q = rt.db.selectFrom("custom_emojis").selectAll().where("domain", "is", null);
  if (f.shortcode?.trim()) q = q.where(contains("shortcode", f.shortcode.trim()));
  return paginate(q, "id", page);
}

export function listRemoteEmojis(
  rt: Runtime,
  actor: Staff,
  f: EmojiFilter,
  page: Page,
): Promise<PageResult<RemoteEmoji>> {
  requirePermission(actor, "manageCustomEmojis");
  let q = rt.db.selectFrom("remote_emojis").selectAll();
  if (f.shortcode?.trim()) q = q.where(contains("shortcode", f.shortcode.trim()));
  if (f.domain?.trim()) q = q.where(startsWith("domain", f.domain.trim()));
  return paginate(q, "id", page);
}

export function uploadEmoji(rt: Runtime, actor: Staff, e: NewEmoji): Promise<CustomEmoji> {
  requirePermission(actor, "manageCustomEmojis");
  return addEmoji(rt, { ...e, overwrite: false }, logged(actor, "create"));
}

type Found = { local: CustomEmoji; remote?: never } | { remote: RemoteEmoji; local?: never };

/** A local or a remote emoji, by id (both tables take their ids from one sequence). */
async function findEmoji(rt: Runtime, id: string): Promise<Found> {
  if (!isId(id)) throw notFound();
  const local = await rt.db
    .selectFrom("custom_emojis")
    .selectAll()
    .where("id", "=", id)
    .where("domain", "is", null)
    .executeTakeFirst();
  if (local) return { local };
  const remote = await rt.db.selectFrom("remote_emojis").selectAll().where("id", "=", id).executeTakeFirst();
  if (remote) return { remote };
  throw notFound();
}

/** Mastodon's audit action for a change: enable or disable alone are named so, others are updates. */
function actionOf(c: EmojiChanges): string {
  if (c.disabled !== undefined && c.category === undefined && c.visibleInPicker === undefined)
    return c.disabled ? "disable" : "enable";
  return "update";
}

/** Changes an emoji; another server's may only be enabled or disabled. */
export async function changeEmoji(rt: Runtime, actor: Staff, id: string, c: EmojiChanges): Promise<void> {
  requirePermission(actor, "manageCustomEmojis");
  const found = await findEmoji(rt, id);
  if (found.local) {
    await updateEmoji(rt, id, c, logged(actor, actionOf(c)));
    return;
  }
  if (c.category !== undefined || c.visibleInPicker !== undefined)
    throw unprocessable("Validation failed: Only this server's emojis have a category and a place in the picker");
  if (c.disabled === undefined) return;
  const disabled = c.disabled;
  await rt.db.transaction().execute(async (trx) => {
    await trx
      .updateTable("remote_emojis")
      .set({ disabled, updated_at: new Date() })
      .where("id", "=", found.remote.id)
      .execute();
    await logged(actor, disabled ? "disable" : "enable")(trx, found.remote);
  });
}

export async function deleteEmoji(rt: Runtime, actor: Staff, id: string): Promise<void> {
  requirePermission(actor, "manageCustomEmojis");
  const found = await findEmoji(rt, id);
  if (found.local) {
    await removeEmoji(rt, found.local.shortcode, logged(actor, "destroy"));
    return;
  }
  await rt.db.transaction().execute(async (trx) => {
    await trx.deleteFrom("remote_emojis").where("id", "=", found.remote.id).execute();
    await logged(actor, "destroy")(trx, found.remote);
  });
}

/**
 * Copies another server's emoji to this one under its shortcode (Mastodon's CustomEmoji#copy!):
 * its image is fetched from that server and checked as an upload is; a local emoji of that
 * shortcode gets the new image and keeps its category and place in the picker.
 */
export async function copyEmoji(rt: Runtime, actor: Staff, id: string): Promise<CustomEmoji> {
  requirePermission(actor, "manageCustomEmojis");
  const { remote } = await findEmoji(rt, id);
  if (!remote) throw unprocessable("Validation failed: Only another server's emoji can be copied");
  const image = await outgoing(rt.config)(remote.image_url, {
    timeoutMs: FETCH_TIMEOUT_MS,
    maxBytes: EMOJI_MAX_BYTES,
  }).catch((error: unknown) => {
    if (error instanceof FetchError)
      throw unprocessable(
        `Validation failed: Image ${error.reason === "too_large" ? "must be at most 256 KB" : "could not be fetched"}`,
      );
    throw error;
  });
  if (image.status !== 200) throw unprocessable("Validation failed: Image could not be fetched");
  const existing = await rt.db
    .selectFrom("custom_emojis")
    .select(["category", "visible_in_picker"])
    .where("domain", "is", null)
    .where("shortcode", "=", remote.shortcode)
    .executeTakeFirst();
  return addEmoji(
    rt,
    {
      shortcode: remote.shortcode,
      image: image.body,
      category: existing?.category ?? null,
      unlisted: existing ? !existing.visible_in_picker : false,
      overwrite: true,
    },
    (trx) => logged(actor, "copy")(trx, remote),
  );
}
