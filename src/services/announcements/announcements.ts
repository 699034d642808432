// Announcements: operators publish, schedule, edit, unpublish and remove them (`rookery
// announcements`, and staff in the web admin, whose changes the audit log keeps); signed-in people
// see the ones in effect, dismiss them (marking them read) and react with emojis, as on Mastodon.
// A published announcement shows from `published_at` until `ends_at` (when it has one).

import type { Selectable } from "kysely";
import { sql } from "kysely";
import type { AnnouncementsTable } from "../../db/schema.ts";
import { notFound, unprocessable } from "../../domain/errors.ts";
import { isId, newId } from "../../domain/ids.ts";
import { extractMentions, renderPlainText } from "../../domain/text/index.ts";
import { urls } from "../../domain/urls.ts";
import type { Runtime } from "../../runtime.ts";
import { publishEvent } from "../../streaming/events.ts";
import { type CustomEmoji, emojisIn, localEmojis } from "../emojis/custom_emojis.ts";
import { logAction } from "../moderation/audit_log.ts";
import { requirePermission, type Staff } from "../moderation/staff.ts";
import { resolveMentions } from "../statuses/mentions.ts";

declare module "../../jobs/queue.ts" {
  interface JobPayloads {
    /** Tells streaming of a scheduled announcement once its time comes. */
    "announcements.publish": { id: string };
  }
}

declare module "../../streaming/events.ts" {
  interface BusEvents {
    /** An announcement was published (or its schedule came): streaming's `announcement`. */
    "announcements.published": { id: string };
    /** Its reactions named `name` changed: streaming's `announcement.reaction`. */
    "announcements.reaction": { id: string; name: string };
    /** Streaming's `announcement.delete`. */
    "announcements.removed": { id: string };
  }
}

export type Announcement = Selectable<AnnouncementsTable>;

/** Mastodon's limit of different reactions on one announcement. */
const REACTION_KINDS = 8;
const UNICODE_EMOJI = /^\p{RGI_Emoji}$/v;

export interface NewAnnouncement {
  text: string;
  startsAt?: Date | null;
  endsAt?: Date | null;
  allDay?: boolean;
  /** Shown from then on; now when not given. */
  publishAt?: Date | null;
}

/** The text as shown (with the accounts it mentions and the public statuses it links), after the checks. */
async function rendered(rt: Runtime, a: NewAnnouncement) {
  const text = a.text.trim();
  if (text === "") throw unprocessable("Validation failed: Text can't be blank");
  if (a.startsAt && a.endsAt && a.endsAt < a.startsAt)
    throw unprocessable("Validation failed: Ends at must be after the start");
  const u = urls(rt.config);
  const mentions = await resolveMentions(rt, extractMentions(text, rt.config.localDomain));
  // Any http(s) address, linked or not (this server's own may be an IP address, which is not linked).
  const links = [...new Set(text.match(/https?:\/\/[^\s<>"]+/g) ?? [])];
  const statuses =
    links.length === 0
      ? []
      : await rt.db
          .selectFrom("statuses")
          .select(["id", "url", "uri"])
          .where((eb) => eb.or([eb("url", "in", links), eb("uri", "in", links)]))
          .where("visibility", "in", ["public", "unlisted"])
          .where("deleted_at", "is", null)
          .where("reblog_of_id", "is", null)
          .execute();
  return {
    text,
    content: renderPlainText(text, { mentions, tagUrl: u.tagUrl, localDomain: rt.config.localDomain }),
    mentions: [...mentions.values()].map((m) => ({ id: m.id, username: m.username, url: m.url, acct: m.acct })),
    statuses: statuses.map((s) => ({ id: s.id, url: s.url ?? s.uri })),
    starts_at: a.startsAt ?? null,
    ends_at: a.endsAt ?? null,
    all_day: a.allDay ?? false,
  };
}

/** Streaming tells everyone of a published announcement now, or once its time comes. */
async function announce(rt: Runtime, row: Pick<Announcement, "id" | "published_at">): Promise<void> {
  if (row.published_at <= new Date()) await publishEvent(rt, "announcements.published", { id: row.id });
  else await rt.queue.enqueue("announcements.publish", { id: row.id }, { runAt: row.published_at });
}

/** Staff acting through the web admin, whose changes the audit log keeps; none for the command line. */
function audit(rt: Runtime, actor: Staff | undefined, action: string, row: Pick<Announcement, "id" | "text">) {
  if (!actor) return;
  return logAction(rt.db, actor, {
    action,
    targetType: "Announcement",
    targetId: row.id,
    identifier: row.text.length > 40 ? `${row.text.slice(0, 40)}…` : row.text,
  });
}

export async function addAnnouncement(rt: Runtime, a: NewAnnouncement, actor?: Staff): Promise<Announcement> {
  if (actor) requirePermission(actor, "manageAnnouncements");
  const now = new Date();
  const row: Announcement = {
    id: newId(),
    ...(await rendered(rt, a)),
    published: true,
    published_at: a.publishAt ?? now,
    created_at: now,
    updated_at: now,
  };
  await rt.db
    .insertInto("announcements")
    .values({ ...row, mentions: JSON.stringify(row.mentions), statuses: JSON.stringify(row.statuses) })
    .execute();
  await audit(rt, actor, "create", row);
  await announce(rt, row);
  return row;
}

/** One announcement, for operators, whatever its state. */
export async function getAnnouncement(rt: Runtime, id: string, actor?: Staff): Promise<Announcement> {
  if (actor) requirePermission(actor, "manageAnnouncements");
  const row = isId(id)
    ? await rt.db.selectFrom("announcements").selectAll().where("id", "=", id).executeTakeFirst()
    : undefined;
  if (!row) throw notFound();
  return row;
}

/** Changes an announcement's text and times; people see the change at once if it is in effect. */
export async function updateAnnouncement(
  rt: Runtime,
  id: string,
  a: NewAnnouncement,
  actor?: Staff,
): Promise<Announcement> {
  const old = await getAnnouncement(rt, id, actor);
  const changed = await rendered(rt, a);
  const row: Announcement = {
    ...old,
    ...changed,
    published_at: a.publishAt ?? old.published_at,
    updated_at: new Date(),
  };
  await rt.db
    .updateTable("announcements")
    .set({
      ...changed,
      mentions: JSON.stringify(row.mentions),
      statuses: JSON.stringify(row.statuses),
      published_at: row.published_at,
      updated_at: row.updated_at,
    })
    .where("id", "=", id)
    .execute();
  await audit(rt, actor, "update", row);
  if (row.published) await announce(rt, row);
  return row;
}

/** Publishes an announcement now (again, after it was unpublished, or before its scheduled time). */
export async function publishAnnouncement(rt: Runtime, id: string, actor?: Staff): Promise<void> {
  const row = await getAnnouncement(rt, id, actor);
  const now = new Date();
  await rt.db
    .updateTable("announcements")
    .set({ published: true, published_at: now, updated_at: now })
    .where("id", "=", id)
    .execute();
  await audit(rt, actor, "publish", row);
  await publishEvent(rt, "announcements.published", { id });
}

/** Takes an announcement out of everyone's sight, keeping it to publish again. */
export async function unpublishAnnouncement(rt: Runtime, id: string, actor?: Staff): Promise<void> {
  const row = await getAnnouncement(rt, id, actor);
  await rt.db
    .updateTable("announcements")
    .set({ published: false, updated_at: new Date() })
    .where("id", "=", id)
    .execute();
  await audit(rt, actor, "unpublish", row);
  await publishEvent(rt, "announcements.removed", { id });
}

/** Job: a scheduled announcement's time came; streaming tells everyone, unless it was removed. */
export async function publishScheduledAnnouncement(rt: Runtime, { id }: { id: string }): Promise<void> {
  const row = await rt.db
    .selectFrom("announcements")
    .select("id")
    .where("id", "=", id)
    .where("published", "=", true)
    .where("published_at", "<=", new Date())
    .executeTakeFirst();
  if (row) await publishEvent(rt, "announcements.published", { id });
}

/** How many reacted to an announcement with `name` (streaming's `announcement.reaction`). */
export async function reactionCount(rt: Runtime, id: string, name: string): Promise<number> {
  const row = await rt.db
    .selectFrom("announcement_reactions")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where("announcement_id", "=", id)
    .where("name", "=", name)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Every announcement, for operators: scheduled and ended ones too. */
export function allAnnouncements(rt: Runtime, actor?: Staff): Promise<Announcement[]> {
  if (actor) requirePermission(actor, "manageAnnouncements");
  return rt.db.selectFrom("announcements").selectAll().orderBy("id").execute();
}

export async function removeAnnouncement(rt: Runtime, id: string, actor?: Staff): Promise<void> {
  if (actor) requirePermission(actor, "manageAnnouncements");
  const gone = isId(id)
    ? await rt.db.deleteFrom("announcements").where("id", "=", id).returning(["id", "text"]).executeTakeFirst()
    : undefined;
  if (!gone) throw notFound();
  await audit(rt, actor, "destroy", gone);
  await publishEvent(rt, "announcements.removed", { id });
}

function inEffect(rt: Runtime, now: Date) {
  return rt.db
    .selectFrom("announcements")
    .selectAll()
    .where("published", "=", true)
    .where("published_at", "<=", now)
    .where((eb) => eb.or([eb("ends_at", "is", null), eb("ends_at", ">", now)]));
}

async function announcementInEffect(rt: Runtime, id: string): Promise<Announcement> {
  const row = await inEffect(rt, new Date()).where("id", "=", id).executeTakeFirst();
  if (!row) throw notFound();
  return row;
}

export interface ReactionView {
  name: string;
  count: number;
  me: boolean;
  /** For a custom emoji. */
  emoji: CustomEmoji | null;
}

export interface AnnouncementView {
  row: Announcement;
  read: boolean;
  reactions: ReactionView[];
  emojis: CustomEmoji[];
}

/**
 * The announcements in effect (or only the one `only` names), oldest first, with the viewer's reads
 * and reactions; without a viewer, as someone who has neither read nor reacted (what streaming sends).
 */
export async function announcementsFor(
  rt: Runtime,
  viewerId: string | null,
  only?: string,
): Promise<AnnouncementView[]> {
  let query = inEffect(rt, new Date()).orderBy("published_at").orderBy("id");
  if (only !== undefined) query = query.where("id", "=", only);
  const rows = await query.execute();
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const [read, reactions, emojis] = await Promise.all([
    viewerId === null
      ? []
      : rt.db
          .selectFrom("announcement_dismissals")
          .select("announcement_id")
          .where("account_id", "=", viewerId)
          .where("announcement_id", "in", ids)
          .execute(),
    rt.db
      .selectFrom("announcement_reactions")
      .select([
        "announcement_id",
        "name",
        (eb) => eb.fn.countAll<number>().as("count"),
        (viewerId === null
          ? sql<number>`0`
          : sql<number>`sum(case when account_id = ${viewerId} then 1 else 0 end)`
        ).as("mine"),
        (eb) => eb.fn.min("id").as("first"),
      ])
      .where("announcement_id", "in", ids)
      .groupBy(["announcement_id", "name"])
      .orderBy("first")
      .execute(),
    localEmojis(rt),
  ]);
  const readIds = new Set(read.map((r) => r.announcement_id));
  return rows.map((row) => ({
    row,
    read: readIds.has(row.id),
    reactions: reactions
      .filter((r) => r.announcement_id === row.id)
      .map((r) => ({
        name: r.name,
        count: Number(r.count),
        me: Number(r.mine) > 0,
        emoji: emojis.get(r.name) ?? null,
      })),
    emojis: emojisIn(emojis, row.text),
  }));
}

/** POST /api/v1/announcements/:id/dismiss: read; twice is fine. */
export async function dismissAnnouncement(rt: Runtime, viewerId: string, id: string): Promise<void> {
  await announcementInEffect(rt, id);
  await rt.db
    .insertInto("announcement_dismissals")
    .values({ id: newId(), announcement_id: id, account_id: viewerId })
    .onConflict((oc) => oc.columns(["account_id", "announcement_id"]).doNothing())
    .execute();
}

/** PUT /api/v1/announcements/:id/reactions/:name, with a Unicode emoji or a custom emoji's shortcode. */
export async function addReaction(rt: Runtime, viewerId: string, id: string, name: string): Promise<void> {
  await announcementInEffect(rt, id);
  if (!UNICODE_EMOJI.test(name) && !(await localEmojis(rt)).has(name))
    throw unprocessable("Validation failed: Name is not a recognized emoji");
  const kinds = await rt.db
    .selectFrom("announcement_reactions")
    .select("name")
    .distinct()
    .where("announcement_id", "=", id)
    .execute();
  if (kinds.length >= REACTION_KINDS && !kinds.some((k) => k.name === name))
    throw unprocessable("Validation failed: Limit of different reactions reached");
  await rt.db
    .insertInto("announcement_reactions")
    .values({ id: newId(), announcement_id: id, account_id: viewerId, name, created_at: new Date() })
    .onConflict((oc) => oc.columns(["announcement_id", "account_id", "name"]).doNothing())
    .execute();
  await publishEvent(rt, "announcements.reaction", { id, name });
}

export async function removeReaction(rt: Runtime, viewerId: string, id: string, name: string): Promise<void> {
  await announcementInEffect(rt, id);
  await rt.db
    .deleteFrom("announcement_reactions")
    .where("announcement_id", "=", id)
    .where("account_id", "=", viewerId)
    .where("name", "=", name)
    .execute();
  await publishEvent(rt, "announcements.reaction", { id, name });
}
