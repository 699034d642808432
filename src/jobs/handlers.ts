// Every job type and the function that runs it. Areas add their handlers here.
import { deliver, distribute, fetchReplies, runFedifyMessage, syncFeatured } from "../federation/load.ts";
import type { Runtime } from "../runtime.ts";
import { moveFollowers } from "../services/accounts/move_followers.ts";
import { publishScheduledAnnouncement } from "../services/announcements/announcements.ts";
import { fetchCardJob } from "../services/cards/fetch.ts";
import { fanOut } from "../services/feeds/fanout.ts";
import { mergeAuthor, rebuildFeeds, removeStatuses, trimFeeds, unmergeAuthor } from "../services/feeds/maintenance.ts";
import { deliverMail } from "../services/mail.ts";
import { cleanupMedia } from "../services/media/cleanup.ts";
import { cacheMediaJob } from "../services/media/remote_cache.ts";
import { expireCachedMedia } from "../services/media/remote_retention.ts";
import { processPendingMedia } from "../services/media/upload.ts";
import { purgeAccount } from "../services/moderation/account_purge.ts";
import { streamNotification } from "../services/notifications/create.ts";
import { pruneImport, runImportChunk } from "../services/portability/imports.ts";
import { expirePoll } from "../services/statuses/polls.ts";
import { publishScheduled } from "../services/statuses/scheduled.ts";
import { notifyBoosters, notifyMentioned, notifySubscribers } from "../services/statuses/side_effects.ts";
import { buildArchive } from "./archive.ts";
import { deliverPush } from "./push.ts";
import {
  type Dispatch,
  JOB_CONCURRENCY,
  type JobContext,
  type JobPayloads,
  type JobType,
  type Queue,
} from "./queue.ts";

type Handler<P> = (rt: Runtime, payload: P, job: JobContext) => Promise<void>;
type Handlers = { [T in JobType]: Handler<JobPayloads[T]> };

const handlers: Handlers = {
  "mail.send": deliverMail,
  "statuses.notify_mentioned": notifyMentioned,
  "statuses.notify_subscribers": notifySubscribers,
  "statuses.notify_boosters": notifyBoosters,
  "feeds.fanout": fanOut,
  "feeds.merge": mergeAuthor,
  "feeds.unmerge": unmergeAuthor,
  "feeds.remove": removeStatuses,
  "feeds.trim": trimFeeds,
  "feeds.rebuild": rebuildFeeds,
  "polls.expire": expirePoll,
  "statuses.publish_scheduled": publishScheduled,
  "media.process": processPendingMedia,
  "media.cleanup": cleanupMedia,
  "media.cache": cacheMediaJob,
  "media.expire_cache": expireCachedMedia,
  "push.deliver": deliverPush,
  "notifications.stream": streamNotification,
  "federation.fedify": runFedifyMessage,
  "federation.distribute": distribute,
  "federation.deliver": deliver,
  "federation.featured": syncFeatured,
  "federation.replies": fetchReplies,
  "accounts.purge": purgeAccount,
  "announcements.publish": publishScheduledAnnouncement,
  "cards.fetch": fetchCardJob,
  "imports.rows": runImportChunk,
  "imports.prune": pruneImport,
  "archives.build": buildArchive,
  "accounts.move": moveFollowers,
};

/** Every job type with a handler (the run-twice test covers each of them). */
export const jobTypes = Object.keys(handlers) as JobType[];

export function dispatcher(rt: Runtime): Dispatch {
  return async (type, payload, job) => {
    const handler = (handlers as Record<string, Handler<unknown>>)[type];
    if (!handler) throw new Error(`No handler for job type ${type}`);
    if (rt.tracing) await rt.tracing.job(type, job.id, () => handler(rt, payload, job));
    else await handler(rt, payload, job);
  };
}

/**
 * Caps the jobs that wait on other servers, which may take their whole deadline each: a link's page
 * (at most two at once), other servers' media (three, in the main thread only, where one limit of
 * downloads per host holds for the whole process: src/media/downloads.ts), and together with
 * deliveries and Web Push, all slots but one. However many servers hang, a local job (fan-out,
 * notifications) always finds a slot.
 */
export function limitJobs(queue: Queue, thread: "main" | "web"): void {
  queue.limit(["cards.fetch"], 2);
  queue.limit(["media.cache"], thread === "main" ? 3 : 0);
  queue.limit(["cards.fetch", "media.cache", "federation.deliver", "push.deliver"], JOB_CONCURRENCY - 1);
}
