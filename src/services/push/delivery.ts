// Pushing a notification to the recipient's subscriptions. A job per notification (enqueued with the
// notification, in its transaction) finds the subscriptions whose alerts and policy want it, leaves
// out what the recipient has since blocked, muted or filtered, and sends each push through the one
// outgoing fetcher: encrypted (RFC 8291 aes128gcm, or the legacy aesgcm), signed with the server's
// VAPID key (RFC 8292). A push that meets 429, 5xx or no answer is tried again later by a job of its
// own, after the push service's Retry-After when it names one; 404 and 410 say the subscription is
// gone, and it is deleted.
//
// Delivery is at least once, as Mastodon's: each successful push is remembered (push_deliveries), so
// a job that runs again after its pushes went out sends nothing twice; only a crash between a push
// and its record can repeat one.
import type { Db } from "../../db/index.ts";
import type { NotificationType } from "../../db/schema.ts";
import { matchFilters } from "../../domain/filters.ts";
import { openSecret } from "../../domain/secrets.ts";
import { htmlToPlainText } from "../../domain/text/index.ts";
import { lazy } from "../../lazy.ts";
import { logger } from "../../log.ts";
import { FetchError } from "../../net/fetch.ts";
import { outgoing } from "../../net/outgoing.ts";
import type { Runtime } from "../../runtime.ts";
import { activeFilters } from "../filters/active.ts";
import { relationOf } from "../notifications/create.ts";
import { type PushSubscription, TOKEN_SEAL } from "./subscriptions.ts";
import { vapidKeys } from "./vapid.ts";

declare module "../../jobs/queue.ts" {
  interface JobPayloads {
    /**
     * Pushes a notification to its recipient's subscriptions; with `subscriptionId`, a retry of the
     * push to that one subscription (`attempt` counts from 1).
     */
    "push.deliver": { notificationId: string; subscriptionId?: string; attempt?: number };
  }
}

const log = logger("push");
/** Loaded with the first push (src/lazy.ts). */
const webPush = lazy<typeof import("web-push")>("web-push");

/** How long a push service keeps a push for a device that is offline: Mastodon's 48 hours. */
export const PUSH_TTL_SECONDS = 48 * 3600;
export const PUSH_URGENCY = "normal";
/** Tries of one push in all, the first included (Mastodon retries a push 5 times). */
const MAX_ATTEMPTS = 6;
const FIRST_RETRY_MS = 30_000;
const LONGEST_WAIT_MS = 6 * 3600_000;
const PUSH_TIMEOUT_MS = 15_000;
/** Push services answer with little; more is not read. */
const MAX_RESPONSE_BYTES = 64 * 1024;
/** How long delivered pushes are remembered: longer than any retry takes. */
const REMEMBER_MS = 2 * 24 * 3600_000;

/** Enqueues the push jobs of new notifications, in their transaction, for the recipients with subscriptions. */
export async function enqueuePushes(rt: Runtime, db: Db, notifications: { accountId: string; id: string }[]) {
  const subscribed = new Set(
    (
      await db
        .selectFrom("push_subscriptions")
        .select("account_id")
        .distinct()
        .where("account_id", "in", [...new Set(notifications.map((n) => n.accountId))])
        .execute()
    ).map((r) => r.account_id),
  );
  for (const n of notifications) {
    if (subscribed.has(n.accountId)) await rt.queue.enqueue("push.deliver", { notificationId: n.id }, {}, db);
  }
}

/** What a push says about a notification, loaded once for all subscriptions. */
export interface PushNotification {
  id: string;
  type: NotificationType;
  accountId: string;
  fromAccountId: string;
  /** The sender's name as shown: display name, else username. */
  senderName: string;
  /** Plain text: the status's content warning, else its text, else the sender's bio. */
  text: string;
}

export interface PushTarget {
  subscription: PushSubscription;
  /** The app's access token, given back in the payload. */
  accessToken: string;
  /** The recipient's language for the title. */
  locale: string;
}

/**
 * The notification and the subscriptions it is to be pushed to now; null when there is nothing to
 * push (the notification is gone or filtered, the sender is shut out or matched by a filter).
 */
export async function loadPush(
  rt: Runtime,
  job: { notificationId: string; subscriptionId?: string },
): Promise<{ notification: PushNotification; targets: PushTarget[] } | null> {
  const n = await rt.db
    .selectFrom("notifications as n")
    .innerJoin("accounts as a", "a.id", "n.from_account_id")
    .leftJoin("statuses as s", "s.id", "n.status_id")
    .leftJoin("statuses as o", "o.id", "s.reblog_of_id")
    .select([
      "n.id",
      "n.type",
      "n.account_id",
      "n.from_account_id",
      "n.filtered",
      "n.status_id",
      "a.domain",
      "a.username",
      "a.display_name",
      "a.note_html",
      "s.deleted_at",
      "s.spoiler_text",
      "s.content",
      "o.id as original_id",
      "o.spoiler_text as original_spoiler_text",
      "o.content as original_content",
    ])
    .where("n.id", "=", job.notificationId)
    .executeTakeFirst();
  if (!n || n.filtered || (n.status_id !== null && (n.content === null || n.deleted_at !== null))) return null;

  let subscriptions = rt.db
    .selectFrom("push_subscriptions as p")
    .innerJoin("oauth_access_tokens as t", "t.id", "p.access_token_id")
    .leftJoin("users as u", "u.id", "t.user_id")
    .selectAll("p")
    .select("u.locale")
    .where("p.account_id", "=", n.account_id)
    .where("t.revoked_at", "is", null)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom("push_deliveries as d")
            .select("d.notification_id")
            .whereRef("d.subscription_id", "=", "p.id")
            .where("d.notification_id", "=", n.id),
        ),
      ),
    );
  if (job.subscriptionId) subscriptions = subscriptions.where("p.id", "=", job.subscriptionId);
  const rows = (await subscriptions.execute()).filter((s) => s.alerts[n.type] === true && s.policy !== "none");
  if (rows.length === 0) return null;

  // A block or notification mute made since the notification was recorded stops its push (the
  // push of a staff mention, which got through one, too).
  const relation = await relationOf(rt.db, n.account_id, n.from_account_id, n.domain);
  if (relation.shutOut && n.account_id !== n.from_account_id) return null;
  const spoiler = n.original_spoiler_text ?? n.spoiler_text ?? "";
  const content = n.original_content ?? n.content;
  const statusText = content === null ? null : htmlToPlainText(content);
  const statusId = n.original_id ?? n.status_id;
  if (
    statusId &&
    statusText !== null &&
    (await filteredOut(rt, n.account_id, statusId, `${spoiler}\n\n${statusText}`))
  ) {
    return null;
  }

  const policyAllows = (s: PushSubscription) =>
    s.policy === "all" ||
    (s.policy === "followed" && relation.following) ||
    (s.policy === "follower" && relation.followerSince !== null);
  return {
    notification: {
      id: n.id,
      type: n.type,
      accountId: n.account_id,
      fromAccountId: n.from_account_id,
      senderName: n.display_name || n.username,
      text: spoiler || statusText || htmlToPlainText(n.note_html),
    },
    targets: rows.filter(policyAllows).flatMap(({ locale, ...subscription }) => {
      const accessToken = unsealToken(rt, subscription);
      return accessToken === null ? [] : [{ subscription, accessToken, locale: locale ?? "en" }];
    }),
  };
}

/** The subscription's access token; null when it cannot be opened (SECRET_KEY_BASE changed since). */
function unsealToken(rt: Runtime, s: PushSubscription): string | null {
  try {
    return openSecret(s.sealed_token, rt.config.secretKeyBase, TOKEN_SEAL);
  } catch {
    log.warn("Push subscription {id} cannot be used: its token was sealed with another SECRET_KEY_BASE", { id: s.id });
    return null;
  }
}

/** Whether one of the recipient's filters for notifications matches the status. */
async function filteredOut(rt: Runtime, accountId: string, statusId: string, text: string): Promise<boolean> {
  const filters = await activeFilters(rt, accountId);
  return filters.length > 0 && matchFilters(filters, "notifications", { id: statusId, text }).length > 0;
}

export type PushOutcome = "delivered" | "gone" | "retry" | "dropped";

/**
 * Sends one push and acts on the answer: remembers it, deletes a gone subscription, or schedules
 * the next try. Never throws for what the push service answered.
 */
export async function sendPush(
  rt: Runtime,
  target: PushTarget,
  notificationId: string,
  payload: string,
  attempt: number,
): Promise<PushOutcome> {
  const s = target.subscription;
  const vapid = await vapidKeys(rt);
  let request: ReturnType<typeof import("web-push").generateRequestDetails>;
  try {
    request = webPush().generateRequestDetails(
      { endpoint: s.endpoint, keys: { p256dh: s.key_p256dh, auth: s.key_auth } },
      payload,
      {
        vapidDetails: { subject: vapidSubject(rt), publicKey: vapid.publicKey, privateKey: vapid.privateKey },
        TTL: PUSH_TTL_SECONDS,
        urgency: PUSH_URGENCY,
        contentEncoding: s.standard ? "aes128gcm" : "aesgcm",
      },
    );
  } catch (error) {
    // Keys are checked when subscribing; whatever still fails here would fail on every try.
    log.warn("Push to {host} not encrypted: {message}", { host: hostOf(s.endpoint), message: String(error) });
    return "dropped";
  }
  let status: number;
  let retryAfter: string | undefined;
  try {
    const response = await withHostSlot(new URL(s.endpoint).host, () =>
      outgoing(rt.config)(request.endpoint, {
        method: "POST",
        // The fetcher sets Content-Length itself.
        headers: Object.fromEntries(
          Object.entries(request.headers)
            .filter(([name]) => name.toLowerCase() !== "content-length")
            .map(([name, value]) => [name, String(value)]),
        ),
        body: request.body ?? undefined,
        timeoutMs: PUSH_TIMEOUT_MS,
        maxBytes: MAX_RESPONSE_BYTES,
        maxRedirects: 0,
      }),
    );
    status = response.status;
    retryAfter = response.headers["retry-after"];
  } catch (error) {
    if (error instanceof FetchError && error.reason === "refused") {
      log.info("Push to {host} refused: {message}", { host: hostOf(s.endpoint), message: error.message });
      return "dropped";
    }
    status = 0;
  }

  if (status >= 200 && status < 300) {
    await rt.db
      .insertInto("push_deliveries")
      .values({ subscription_id: s.id, notification_id: notificationId, created_at: new Date() })
      .onConflict((oc) => oc.columns(["subscription_id", "notification_id"]).doNothing())
      .execute();
    return "delivered";
  }
  if (status === 404 || status === 410) {
    await rt.db.deleteFrom("push_subscriptions").where("id", "=", s.id).execute();
    return "gone";
  }
  if ((status === 0 || status === 408 || status === 429 || status >= 500) && attempt < MAX_ATTEMPTS) {
    await rt.queue.enqueue(
      "push.deliver",
      { notificationId, subscriptionId: s.id, attempt: attempt + 1 },
      { runAt: new Date(Date.now() + retryDelayMs(attempt, retryAfter)) },
    );
    return "retry";
  }
  log.info("Push to {host} dropped after answer {status} (attempt {attempt})", {
    host: hostOf(s.endpoint),
    status,
    attempt,
  });
  return "dropped";
}

/** Forgets deliveries older than any retry of them can be. */
export async function forgetOldDeliveries(rt: Runtime): Promise<void> {
  await rt.db
    .deleteFrom("push_deliveries")
    .where("created_at", "<", new Date(Date.now() - REMEMBER_MS))
    .execute();
}

/** Exponential backoff from 30 s; a longer Retry-After (seconds or a date) wins, up to 6 hours. */
export function retryDelayMs(attempt: number, retryAfter: string | undefined, now = Date.now()): number {
  const backoff = FIRST_RETRY_MS * 4 ** (attempt - 1);
  let asked = 0;
  if (retryAfter) {
    asked = /^\d+$/.test(retryAfter.trim()) ? Number(retryAfter) * 1000 : Date.parse(retryAfter) - now;
  }
  return Math.min(LONGEST_WAIT_MS, Math.max(backoff, Number.isFinite(asked) ? asked : 0));
}

/** Whom the push service may contact about our pushes (RFC 8292): the contact email, else the site. */
function vapidSubject(rt: Runtime): string {
  const email = rt.config.site.contactEmail;
  return email ? `mailto:${email}` : `https://${rt.config.webDomain}/`;
}

function hostOf(endpoint: string): string {
  return new URL(endpoint).host;
}

/** Pushes under way to one push service from this process, at most PER_HOST at once. */
const PER_HOST = 4;
const slots = new Map<string, { active: number; waiting: (() => void)[] }>();

async function withHostSlot<T>(host: string, run: () => Promise<T>): Promise<T> {
  const slot = slots.get(host) ?? { active: 0, waiting: [] };
  slots.set(host, slot);
  if (slot.active >= PER_HOST) await new Promise<void>((resolve) => slot.waiting.push(resolve));
  else slot.active++;
  try {
    return await run();
  } finally {
    // A waiting push takes the slot over; the last one out removes the host.
    const next = slot.waiting.shift();
    if (next) next();
    else if (--slot.active === 0) slots.delete(host);
  }
}
