// What posting and editing share: checking a text, rendering it, and writing its mentions and tags.
import type { Db } from "../../db/index.ts";
import type { UserSettings, Visibility } from "../../db/schema.ts";
import { unprocessable } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import { isLanguage } from "../../domain/languages.ts";
import {
  countCharacters,
  countGraphemes,
  detectLanguage,
  extractHashtags,
  extractMentions,
  isValidHashtag,
  normalizeHashtag,
  renderPlainText,
} from "../../domain/text/index.ts";
import { urls } from "../../domain/urls.ts";
import type { Runtime } from "../../runtime.ts";
import { type MentionedAccount, resolveMentions } from "./mentions.ts";

export const VISIBILITIES: Visibility[] = ["public", "unlisted", "private", "direct"];

/** The visibility a new status gets: the one asked for (one of Mastodon's four), else the poster's default. */
export function chosenVisibility(asked: string | null | undefined, settings: UserSettings): Visibility {
  if (asked === null || asked === undefined) return settings.default_privacy ?? "public";
  if (!VISIBILITIES.includes(asked as Visibility)) {
    throw unprocessable("Validation failed: Visibility is not included in the list");
  }
  return asked as Visibility;
}

export interface Draft {
  text: string;
  spoilerText: string;
  language: string | null;
  mediaIds: string[];
}

/** Length, emptiness and language checks, with Mastodon's messages (media: services/media/attach.ts). */
export function checkDraft(rt: Runtime, d: Draft): void {
  const limit = rt.config.limits.statusChars;
  if (d.text.trim() === "" && d.mediaIds.length === 0) throw unprocessable("Validation failed: Text can't be blank");
  // The content warning counts towards the limit, as in Mastodon.
  if (countCharacters(d.text, rt.config.limits.charsPerUrl) + countGraphemes(d.spoilerText) > limit) {
    throw unprocessable(`Validation failed: Text character limit of ${limit} exceeded`);
  }
  if (d.language !== null && !isLanguage(d.language))
    throw unprocessable("Validation failed: Language is not included in the list");
}

export interface Rendered {
  content: string;
  mentions: MentionedAccount[];
  tags: string[];
  language: string | null;
}

/** Renders the text with its mentions resolved; the language is the given one, the default, or a guess. */
export async function renderDraft(rt: Runtime, d: Draft, defaultLanguage: string | null): Promise<Rendered> {
  const refs = extractMentions(d.text);
  const resolved = await resolveMentions(rt, refs);
  const content = renderPlainText(d.text, {
    mentions: resolved,
    tagUrl: urls(rt.config).tagUrl,
    localDomain: rt.config.localDomain,
  });
  const tags = extractHashtags(d.text).filter(isValidHashtag);
  const language = d.language ?? defaultLanguage ?? (await detectLanguage(d.text));
  return { content, mentions: [...new Map([...resolved.values()].map((m) => [m.id, m])).values()], tags, language };
}

/** Adds mentions of these accounts to a status, in one statement. */
export async function addMentions(db: Db, statusId: string, accountIds: string[]): Promise<void> {
  if (accountIds.length === 0) return;
  await db
    .insertInto("status_mentions")
    .values(accountIds.map((accountId) => ({ id: newId(), status_id: statusId, account_id: accountId })))
    .execute();
}

/**
 * Replaces an edited status's mentions; returns the accounts mentioned for the first time. A mention
 * taken out stays as a silent one (the account keeps access to the status); mentioned again, it
 * speaks again but notifies nothing new.
 */
export async function replaceMentions(db: Db, statusId: string, accountIds: string[]): Promise<string[]> {
  const existing = await db
    .selectFrom("status_mentions")
    .select(["account_id", "silent"])
    .where("status_id", "=", statusId)
    .execute();
  const setSilent = async (ids: string[], silent: boolean) => {
    if (ids.length === 0) return;
    await db
      .updateTable("status_mentions")
      .set({ silent })
      .where("status_id", "=", statusId)
      .where("account_id", "in", ids)
      .execute();
  };
  await setSilent(
    existing.filter((m) => !m.silent && !accountIds.includes(m.account_id)).map((m) => m.account_id),
    true,
  );
  await setSilent(
    existing.filter((m) => m.silent && accountIds.includes(m.account_id)).map((m) => m.account_id),
    false,
  );
  const known = new Set(existing.map((m) => m.account_id));
  const added = accountIds.filter((id) => !known.has(id));
  await addMentions(db, statusId, added);
  return added;
}

/** Adds hashtags to a status, creating the tags met for the first time: two statements for any number. */
export async function addTags(db: Db, statusId: string, names: string[], at: Date): Promise<void> {
  const byKey = new Map(names.map((n) => [normalizeHashtag(n), n]));
  if (byKey.size === 0) return;
  const tags = await db
    .insertInto("tags")
    .values(
      [...byKey].map(([name, display]) => ({
        id: newId(),
        name,
        display_name: display,
        last_status_at: at,
        created_at: at,
      })),
    )
    .onConflict((oc) => oc.column("name").doUpdateSet({ last_status_at: at }))
    .returning("id")
    .execute();
  await db
    .insertInto("status_tags")
    .values(tags.map((t) => ({ tag_id: t.id, status_id: statusId })))
    .execute();
}

/** Replaces an edited status's hashtags. */
export async function replaceTags(db: Db, statusId: string, names: string[], at: Date): Promise<void> {
  await db.deleteFrom("status_tags").where("status_id", "=", statusId).execute();
  await addTags(db, statusId, names, at);
}
