// Muting an account: its posts and (unless asked otherwise) its notifications stay out of sight,
// for good or for a while. An expired mute is no mute anywhere (src/db/expiry.ts).

import { unexpired } from "../../db/expiry.ts";
import { type Page, type PageResult, paginate } from "../../db/paginate.ts";
import { newId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import { requireAccount } from "./targets.ts";

export interface MuteOptions {
  /** Hide the account's notifications too (the default). */
  notifications?: boolean;
  /** Seconds until the mute ends; 0 for never. */
  duration?: number;
}

/** Mutes `targetId`, or changes an existing mute (its duration starts again). Muting oneself does nothing. */
export async function mute(rt: Runtime, accountId: string, targetId: string, options: MuteOptions): Promise<void> {
  await requireAccount(rt.db, targetId);
  if (accountId === targetId) return;
  const hideNotifications = options.notifications ?? true;
  const duration = options.duration ?? 0;
  const expiresAt = duration === 0 ? null : new Date(Date.now() + duration * 1000);
  await rt.db
    .insertInto("mutes")
    .values({
      id: newId(),
      account_id: accountId,
      target_account_id: targetId,
      hide_notifications: hideNotifications,
      expires_at: expiresAt,
      created_at: new Date(),
    })
    .onConflict((oc) =>
      oc
        .columns(["account_id", "target_account_id"])
        .doUpdateSet({ hide_notifications: hideNotifications, expires_at: expiresAt }),
    )
    .execute();
  // The muted account's posts, and boosts of them, leave the home feed.
  await rt.queue.enqueue("feeds.unmerge", { feedId: accountId, authorId: targetId, boosts: true });
}

export async function unmute(rt: Runtime, accountId: string, targetId: string): Promise<void> {
  await requireAccount(rt.db, targetId);
  await rt.db
    .deleteFrom("mutes")
    .where("account_id", "=", accountId)
    .where("target_account_id", "=", targetId)
    .execute();
}

/** Accounts `accountId` mutes now, newest mute first, with when each mute ends; suspended ones left out. */
export function listMutes(
  rt: Runtime,
  accountId: string,
  page: Page,
): Promise<PageResult<{ id: string; account_id: string; expires_at: Date | null }>> {
  const q = rt.db
    .selectFrom("mutes as m")
    .innerJoin("accounts as a", "a.id", "m.target_account_id")
    .select(["m.id", "m.target_account_id as account_id", "m.expires_at"])
    .where("m.account_id", "=", accountId)
    .where("a.suspended_at", "is", null)
    .where(unexpired("m.expires_at"));
  return paginate(q, "m.id", page);
}
