// Changing one's own profile (PATCH /api/v1/accounts/update_credentials, DELETE /api/v1/profile/*),
// with the rules of Mastodon's Account model.

import type { AccountField, UserSettings, Visibility } from "../../db/schema.ts";
import { normalizeDomain } from "../../domain/domain_names.ts";
import { type FieldError, fieldError, validationFailed } from "../../domain/errors.ts";
import { isLanguage } from "../../domain/languages.ts";
import { codePoints } from "../../domain/lengths.ts";
import { randomToken } from "../../domain/secrets.ts";
import {
  countCharacters,
  extractMentions,
  type RenderOptions,
  renderPlainText,
  renderProfileField,
} from "../../domain/text/index.ts";
import type { Upload } from "../../domain/uploads.ts";
import { urls } from "../../domain/urls.ts";
import { type ProcessedImage, type ProfileImageKind, processProfileImage, stillKey } from "../../media/images.ts";
import { mediaStorage } from "../../media/storage.ts";
import type { Runtime } from "../../runtime.ts";
import { publishEvent } from "../../streaming/events.ts";
import { federate } from "../federation/outbox.ts";
import { resolveMentions } from "../statuses/mentions.ts";
import { QUOTE_POLICIES, type QuotePolicy } from "../visibility/quote.ts";

export interface ProfileChanges {
  displayName?: string;
  note?: string;
  avatar?: Upload;
  header?: Upload;
  locked?: boolean;
  bot?: boolean;
  discoverable?: boolean;
  hideCollections?: boolean;
  indexable?: boolean;
  fields?: { name: string; value: string }[];
  attributionDomains?: string[];
  source?: { privacy?: string; sensitive?: boolean; language?: string; quotePolicy?: string };
}

const PRIVACIES: Visibility[] = ["public", "unlisted", "private"];
const ATTRIBUTION_DOMAINS_MAX = 10;

/** Mastodon keeps a local field's name and value to their first 255 characters. */
const truncate = (s: string, max: number) => [...s.trim()].slice(0, max).join("");

/** Fields as sent, without the wholly empty ones (apps send the blank rows of their form). */
function fieldsOf(changes: ProfileChanges, max: number) {
  return changes.fields
    ?.filter((f) => f.name.trim() !== "" || f.value.trim() !== "")
    .map((f) => ({ name: truncate(f.name, max), value: truncate(f.value, max) }));
}

/** `https://example.com`, `*.example.com` and `example.com` all name example.com, once. */
function attributionDomainsOf(changes: ProfileChanges): string[] | undefined {
  if (!changes.attributionDomains) return undefined;
  const domains = changes.attributionDomains
    .map((d) =>
      d
        .trim()
        .replace(/^https?:\/\//, "")
        .replace(/^\*\./, ""),
    )
    .filter(Boolean);
  return [...new Set(domains)];
}

function validate(
  rt: Runtime,
  values: { displayName?: string; note?: string; fields?: { name: string; value: string }[]; domains?: string[] },
): void {
  const l = rt.config.limits;
  const errors: Record<string, FieldError[]> = {};
  const add = (attribute: string, e: FieldError) => {
    errors[attribute] ??= [];
    errors[attribute].push(e);
  };
  if (values.displayName !== undefined && codePoints(values.displayName) > l.displayNameChars) {
    add("display_name", fieldError.tooLong(l.displayNameChars));
  }
  if (values.note !== undefined && countCharacters(values.note, l.charsPerUrl) > l.bioChars) {
    add("note", fieldError.tooLong(l.bioChars));
  }
  if (values.fields) {
    // Rails words an array's limit in characters; the message is Mastodon's as it stands.
    if (values.fields.length > l.profileFields) add("fields", fieldError.tooLong(l.profileFields));
    if (values.fields.some((f) => f.name === "" && f.value !== "")) {
      add("fields", {
        error: "ERR_FIELDS_WITH_VALUES_MISSING_LABELS",
        description: "contains values with missing labels",
      });
    }
  }
  if (values.domains) {
    for (const d of values.domains) {
      if (normalizeDomain(d) === null)
        add("attribution_domains", fieldError.invalid(`${d} is not a valid domain name`));
    }
    if (values.domains.length > ATTRIBUTION_DOMAINS_MAX) {
      add("attribution_domains", fieldError.tooLong(ATTRIBUTION_DOMAINS_MAX));
    }
  }
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
}

/**
 * The user's posting defaults after `source`. Mastodon saves them with a non-raising update, so
 * a value it would refuse changes nothing and is no error; an empty language means "detect it".
 */
function settingsAfter(current: UserSettings, source: ProfileChanges["source"]): UserSettings {
  const settings: UserSettings = { ...current };
  if (source?.privacy !== undefined && PRIVACIES.includes(source.privacy as Visibility)) {
    settings.default_privacy = source.privacy as Visibility;
  }
  if (source?.sensitive !== undefined) settings.default_sensitive = source.sensitive;
  if (source?.quotePolicy !== undefined && (QUOTE_POLICIES as readonly string[]).includes(source.quotePolicy)) {
    settings.default_quote_policy = source.quotePolicy as QuotePolicy;
  }
  if (source?.language === "") settings.default_language = null;
  else if (source?.language !== undefined && isLanguage(source.language)) settings.default_language = source.language;
  return settings;
}

/** How bios and field values are rendered: mentions of known accounts, links, hashtags. */
async function renderOptions(rt: Runtime, texts: string[]): Promise<RenderOptions> {
  const refs = texts.flatMap((t) => extractMentions(t));
  return {
    mentions: await resolveMentions(rt, refs),
    tagUrl: urls(rt.config).tagUrl,
    localDomain: rt.config.localDomain,
  };
}

/** Stores an avatar or a header (and a GIF's still) under a new key; returns the key. */
export async function storeProfileImage(rt: Runtime, accountId: string, kind: ProfileImageKind, image: ProcessedImage) {
  const storage = mediaStorage(rt.config);
  const key = `accounts/${kind}s/${accountId}/${randomToken(12)}.${image.extension}`;
  await storage.put(key, image.data, `image/${image.extension === "jpg" ? "jpeg" : image.extension}`);
  if (image.still) await storage.put(stillKey(key), image.still, "image/png");
  return key;
}

/** Removes avatar or header files, each with its still. */
export async function removeProfileImageFiles(rt: Runtime, keys: (string | null)[]): Promise<void> {
  const storage = mediaStorage(rt.config);
  for (const key of keys) {
    if (!key) continue;
    await storage.delete(key);
    if (stillKey(key) !== key) await storage.delete(stillKey(key));
  }
}

export async function updateProfile(rt: Runtime, user: { id: string; accountId: string }, changes: ProfileChanges) {
  // Rails strips the name and the bio before checking them.
  const displayName = changes.displayName?.trim();
  const note = changes.note?.trim();
  const fields = fieldsOf(changes, rt.config.limits.profileFieldChars);
  const domains = attributionDomainsOf(changes);
  validate(rt, { displayName, note, fields, domains });

  const current = await rt.db
    .selectFrom("accounts as a")
    .innerJoin("users as u", "u.account_id", "a.id")
    .select(["a.avatar_file", "a.header_file", "a.note", "a.fields", "u.settings"])
    .where("a.id", "=", user.accountId)
    .executeTakeFirstOrThrow();
  const options = await renderOptions(rt, [note ?? current.note, ...(fields ?? current.fields).map((f) => f.value)]);
  const renderedFields: AccountField[] | undefined = fields?.map((f) => ({
    name: f.name,
    value: f.value,
    value_html: renderProfileField(f.value, options),
    verified_at: null,
  }));

  // Images are checked and written before the transaction; if it fails they are removed again.
  const avatar = changes.avatar ? await processProfileImage(changes.avatar, "avatar") : null;
  const header = changes.header ? await processProfileImage(changes.header, "header") : null;
  const avatarKey = avatar ? await storeProfileImage(rt, user.accountId, "avatar", avatar) : null;
  const headerKey = header ? await storeProfileImage(rt, user.accountId, "header", header) : null;
  const now = new Date();
  try {
    await rt.db.transaction().execute(async (trx) => {
      await trx
        .updateTable("accounts")
        .set({
          ...(displayName !== undefined ? { display_name: displayName } : {}),
          ...(note !== undefined ? { note, note_html: renderPlainText(note, options) } : {}),
          ...(renderedFields ? { fields: JSON.stringify(renderedFields) } : {}),
          ...(changes.locked !== undefined ? { locked: changes.locked } : {}),
          ...(changes.bot !== undefined ? { actor_type: changes.bot ? "Service" : "Person" } : {}),
          ...(changes.discoverable !== undefined ? { discoverable: changes.discoverable } : {}),
          ...(changes.hideCollections !== undefined ? { hide_collections: changes.hideCollections } : {}),
          ...(changes.indexable !== undefined ? { indexable: changes.indexable } : {}),
          ...(domains ? { attribution_domains: JSON.stringify(domains) } : {}),
          ...(avatarKey ? { avatar_file: avatarKey } : {}),
          ...(headerKey ? { header_file: headerKey } : {}),
          updated_at: now,
        })
        .where("id", "=", user.accountId)
        .execute();
      if (changes.source) {
        await trx
          .updateTable("users")
          .set({ settings: JSON.stringify(settingsAfter(current.settings, changes.source)), updated_at: now })
          .where("id", "=", user.id)
          .execute();
      }
      await federate(rt, trx, user.accountId, { type: "UpdateActor", accountId: user.accountId });
    });
  } catch (error) {
    await removeProfileImageFiles(rt, [avatarKey, headerKey]);
    throw error;
  }
  await publishEvent(rt, "account.changed", { id: user.accountId });
  // The replaced images go once nothing points at them any more.
  await removeProfileImageFiles(rt, [avatarKey ? current.avatar_file : null, headerKey ? current.header_file : null]);
}

/** DELETE /api/v1/profile/avatar and /header: back to the default image. */
export async function removeProfileImage(rt: Runtime, accountId: string, kind: ProfileImageKind): Promise<void> {
  const column = kind === "avatar" ? "avatar_file" : "header_file";
  const row = await rt.db.selectFrom("accounts").select(column).where("id", "=", accountId).executeTakeFirstOrThrow();
  await rt.db
    .updateTable("accounts")
    .set({ [column]: null, updated_at: new Date() })
    .where("id", "=", accountId)
    .execute();
  await publishEvent(rt, "account.changed", { id: accountId });
  await removeProfileImageFiles(rt, [row[column]]);
}
