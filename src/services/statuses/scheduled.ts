// Statuses posted later: kept with their parameters, and published on time by a durable job, which
// survives restarts because it lives in the database.

import type { Selectable } from "kysely";
import { lockRow } from "../../db/concurrency.ts";
import type { Db } from "../../db/index.ts";
import { type Page, type PageResult, paginate } from "../../db/paginate.ts";
import type { ScheduledStatusesTable, ScheduledStatusParams } from "../../db/schema.ts";
import { ApiError, notFound, unprocessable } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import { logger } from "../../log.ts";
import type { Runtime } from "../../runtime.ts";
import { userSettings } from "../accounts/preferences.ts";
import { checkMedia, reserveMedia } from "../media/attach.ts";
import { releaseScheduledMedia } from "../media/cleanup.ts";
import { checkDraft, chosenVisibility } from "./compose.ts";
import { checkPoll } from "./polls.ts";
import { postStatus } from "./post.ts";
import { quotableStatus, quotePolicyOf } from "./quotes.ts";

declare module "../../jobs/queue.ts" {
  interface JobPayloads {
    "statuses.publish_scheduled": { scheduledId: string };
  }
}

export type ScheduledStatus = Selectable<ScheduledStatusesTable>;

// Mastodon's rules: at least 5 minutes ahead, at most 300 waiting, 25 a day.
const MIN_AHEAD_MS = 5 * 60_000;
const TOTAL_LIMIT = 300;
const DAILY_LIMIT = 25;

/**
 * Checks the time and the limits in the transaction that schedules, after taking the account's
 * lock: statuses scheduled at once are counted one after the other, so that the limits hold.
 */
async function checkTime(rt: Runtime, db: Db, accountId: string, at: Date, exceptId?: string): Promise<void> {
  if (Number.isNaN(at.getTime()) || at.getTime() < Date.now() + MIN_AHEAD_MS) {
    throw unprocessable("Validation failed: Scheduled at must be at least 5 minutes in the future");
  }
  await lockRow(db, rt.dialect, "accounts", accountId);
  let q = db.selectFrom("scheduled_statuses").select("scheduled_at").where("account_id", "=", accountId);
  if (exceptId) q = q.where("id", "!=", exceptId);
  const waiting = await q.execute();
  if (waiting.length >= TOTAL_LIMIT)
    throw unprocessable("Validation failed: You have exceeded the limit of scheduled posts");
  const day = at.toISOString().slice(0, 10);
  if (waiting.filter((w) => w.scheduled_at.toISOString().slice(0, 10) === day).length >= DAILY_LIMIT) {
    throw unprocessable("Validation failed: You have exceeded the limit of scheduled posts for that day");
  }
}

export async function scheduleStatus(
  rt: Runtime,
  user: { id: string; accountId: string },
  at: Date,
  asked: ScheduledStatusParams,
): Promise<ScheduledStatus> {
  const { accountId } = user;
  // The visibility it will have: the poster's default when none was asked for, as Mastodon shows it.
  const params = { ...asked, visibility: chosenVisibility(asked.visibility, await userSettings(rt, user.id)) };
  // Checked now as they will be when published, so that nothing fails unseen later.
  checkDraft(rt, {
    text: params.text,
    spoilerText: params.spoiler_text,
    language: params.language,
    mediaIds: params.media_ids,
  });
  if (params.poll) {
    checkPoll(rt, {
      options: params.poll.options,
      expiresIn: params.poll.expires_in,
      multiple: params.poll.multiple,
      hideTotals: params.poll.hide_totals,
    });
  }
  await checkMedia(rt, { accountId }, params.media_ids);
  if (params.quoted_status_id) await quotableStatus(rt, accountId, params.quoted_status_id);
  const row: ScheduledStatus = { id: newId(), account_id: accountId, scheduled_at: at, params, created_at: new Date() };
  await rt.db.transaction().execute(async (trx) => {
    await checkTime(rt, trx, accountId, at);
    await trx
      .insertInto("scheduled_statuses")
      .values({ ...row, params: JSON.stringify(params) })
      .execute();
    await reserveMedia(trx, row.id, params.media_ids);
    await rt.queue.enqueue("statuses.publish_scheduled", { scheduledId: row.id }, { runAt: at }, trx);
  });
  return row;
}

export async function ownScheduled(rt: Runtime, accountId: string, id: string): Promise<ScheduledStatus> {
  const row = await rt.db
    .selectFrom("scheduled_statuses")
    .selectAll()
    .where("id", "=", id)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
  if (!row) throw notFound();
  return row;
}

export function listScheduled(rt: Runtime, accountId: string, page: Page): Promise<PageResult<ScheduledStatus>> {
  return paginate(rt.db.selectFrom("scheduled_statuses").selectAll().where("account_id", "=", accountId), "id", page);
}

export async function reschedule(rt: Runtime, accountId: string, id: string, at: Date): Promise<ScheduledStatus> {
  await ownScheduled(rt, accountId, id);
  await rt.db.transaction().execute(async (trx) => {
    await checkTime(rt, trx, accountId, at, id);
    await trx.updateTable("scheduled_statuses").set({ scheduled_at: at }).where("id", "=", id).execute();
    // The earlier job finds the new time and leaves the publishing to this one.
    await rt.queue.enqueue("statuses.publish_scheduled", { scheduledId: id }, { runAt: at }, trx);
  });
  return ownScheduled(rt, accountId, id);
}

export async function cancelScheduled(rt: Runtime, accountId: string, id: string): Promise<void> {
  await ownScheduled(rt, accountId, id);
  await rt.db.transaction().execute(async (trx) => {
    await trx.deleteFrom("scheduled_statuses").where("id", "=", id).execute();
    await releaseScheduledMedia(trx, id, new Date());
  });
}

/** Job: publishes a scheduled status when its time has come. */
export async function publishScheduled(rt: Runtime, { scheduledId }: { scheduledId: string }): Promise<void> {
  const row = await rt.db.selectFrom("scheduled_statuses").selectAll().where("id", "=", scheduledId).executeTakeFirst();
  if (!row || row.scheduled_at.getTime() > Date.now() + 1000) return;
  const user = await rt.db.selectFrom("users").select("id").where("account_id", "=", row.account_id).executeTakeFirst();
  if (user) {
    const p = row.params;
    try {
      await postStatus(
        rt,
        { userId: user.id, accountId: row.account_id, applicationId: p.application_id },
        {
          text: p.text,
          spoilerText: p.spoiler_text,
          language: p.language,
          mediaIds: p.media_ids,
          visibility: p.visibility ?? undefined,
          sensitive: p.sensitive ?? undefined,
          inReplyToId: p.in_reply_to_id ?? undefined,
          quotedStatusId: p.quoted_status_id ?? undefined,
          quotePolicy: p.quote_approval_policy ? quotePolicyOf(p.quote_approval_policy) : undefined,
          // The scheduled status's own id keeps a retried job from posting twice.
          idempotencyKey: `scheduled-${row.id}`,
          scheduledId: row.id,
          poll: p.poll
            ? {
                options: p.poll.options,
                expiresIn: p.poll.expires_in,
                multiple: p.poll.multiple,
                hideTotals: p.poll.hide_totals,
              }
            : undefined,
        },
      );
    } catch (error) {
      // A post no longer valid (a reply whose parent is gone, say) is dropped, as Mastodon does.
      if (!(error instanceof ApiError)) throw error;
      logger("statuses").warn("Scheduled status {id} could not be published: {error}", {
        id: row.id,
        error: String(error),
      });
    }
  }
  await rt.db.transaction().execute(async (trx) => {
    await trx.deleteFrom("scheduled_statuses").where("id", "=", row.id).execute();
    await releaseScheduledMedia(trx, row.id, new Date());
  });
}
