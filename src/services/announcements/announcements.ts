// Announcements: operators publish, schedule and remove them (`rookery announcements`); signed-in
// people see the ones in effect, dismiss them (marking them read) and react with emojis, as on
// Mastodon. An announcement shows from `published_at` until `ends_at` (when it has one).

import type { Selectable } from "kysely";
import { sql } from "kysely";
import type { AnnouncementsTable } from "../../db/schema.ts";
import { notFound, unprocessable } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import { extractMentions, renderPlainText } from "../../domain/text/index.ts";
import { urls } from "../../domain/urls.ts";
import type { Runtime } from "../../runtime.ts";
import { publishEvent } from "../../streaming/events.ts";
import { type CustomEmoji, emojisIn, localEmojis } from "../emojis/custom_emojis.ts";
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

export async function addAnnouncement(rt: Runtime, a: NewAnnouncement): Promise<Announcement> {
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
  const now = new Date();
  const row: Announcement = {
    id: newId(),
    text,
    content: renderPlainText(text, { mentions, tagUrl: u.tagUrl, localDomain: rt.config.localDomain }),
    mentions: [...mentions.values()].map((m) => ({ id: m.id, username: m.username, url: m.url, acct: m.acct })),
    statuses: statuses.map((s) => ({ id: s.id, url: s.url ?? s.uri })),
    starts_at: a.startsAt ?? null,
    ends_at: a.endsAt ?? null,
    all_day: a.allDay ?? false,
    published_at: a.publishAt ?? now,
    created_at: now,
    updated_at: now,
  };
  await rt.db
    .insertInto("announcements")
    .values({ ...row, mentions: JSON.stringify(row.mentions), statuses: JSON.stringify(row.statuses) })
    .execute();
  if (row.published_at <= now) await publishEvent(rt, "announcements.published", { id: row.id });
  else await rt.queue.enqueue("announcements.publish", { id: row.id }, { runAt: row.published_at });
  return row;
}

/** Job: a scheduled announcement's time came; streaming tells everyone, unless it was removed. */
export async function publishScheduledAnnouncement(rt: Runtime, { id }: { id: string }): Promise<void> {
  const row = await rt.db
    .selectFrom("announcements")
    .select("id")
    .where("id", "=", id)
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
export function allAnnouncements(rt: Runtime): Promise<Announcement[]> {
  return rt.db.selectFrom("announcements").selectAll().orderBy("id").execute();
}

export async function removeAnnouncement(rt: Runtime, id: string): Promise<void> {
  const gone = await rt.db.deleteFrom("announcements").where("id", "=", id).returning("id").executeTakeFirst();
  if (!gone) throw notFound();
  await publishEvent(rt, "announcements.removed", { id });
}

function inEffect(rt: Runtime, now: Date) {
  return rt.db
    .selectFrom("announcements")
    .selectAll()
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
