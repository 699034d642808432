// The Account entity, rendered from what services/accounts/views.ts loaded (the status views carry
// their authors so).
import { highlightedRoles, roleEntity } from "../domain/roles.ts";
import { urls } from "../domain/urls.ts";
import { stillKey } from "../media/images.ts";
import { mediaStorage } from "../media/storage.ts";
import type { Runtime } from "../runtime.ts";
import { type AccountRow, type AccountView, type CredentialView, day } from "../services/accounts/views.ts";
import { renderCustomEmojis } from "./custom_emoji.ts";
import { fill, holes, type JsonOut, makeTemplate, type Template, Writer } from "./json_text.ts";

export interface AccountEntity {
  id: string;
  username: string;
  acct: string;
  display_name: string;
  locked: boolean;
  bot: boolean;
  discoverable: boolean | null;
  indexable: boolean;
  group: boolean;
  created_at: string;
  note: string;
  url: string;
  uri: string;
  avatar: string;
  avatar_static: string;
  header: string;
  header_static: string;
  followers_count: number;
  following_count: number;
  statuses_count: number;
  last_status_at: string | null;
  hide_collections: boolean;
  emojis: unknown[];
  fields: { name: string; value: string; verified_at: string | null }[];
  moved?: AccountEntity | null;
  suspended?: true;
  limited?: true;
  /** Local accounts only. */
  noindex?: boolean;
  /** The highlighted roles of local accounts only. */
  roles?: { id: string; name: string; color: string }[];
}

const MISSING_AVATAR = "/avatars/original/missing.png";
const MISSING_HEADER = "/headers/original/missing.png";

type ImageColumns = Pick<
  AccountRow,
  "avatar_file" | "avatar_remote_url" | "header_file" | "header_remote_url" | "suspended_at"
>;

/**
 * Where an account's avatar and header are, each with its still (a GIF's first frame), or null
 * when it has none or is suspended. The API falls back to the placeholder images.
 */
function profileImageUrls(rt: Runtime, row: ImageColumns) {
  const storage = mediaStorage(rt.config);
  const image = (file: string | null, remoteUrl: string | null) =>
    row.suspended_at !== null ? null : file ? storage.url(file) : remoteUrl;
  const still = (file: string | null, remoteUrl: string | null) =>
    row.suspended_at !== null ? null : file ? storage.url(stillKey(file)) : remoteUrl;
  return {
    avatar: image(row.avatar_file, row.avatar_remote_url),
    avatarStill: still(row.avatar_file, row.avatar_remote_url),
    header: image(row.header_file, row.header_remote_url),
    headerStill: still(row.header_file, row.header_remote_url),
  };
}

/**
 * Renders a loaded row, as Mastodon's REST::AccountSerializer does. A suspended account shows
 * nothing of its profile: default images, no name, bio, fields, flags or counts.
 */
function renderAccount(rt: Runtime, row: AccountRow): AccountEntity {
  const u = urls(rt.config);
  const suspended = row.suspended_at !== null;
  const local = row.domain === null;
  const images = profileImageUrls(rt, row);
  const entity: AccountEntity = {
    id: row.id,
    username: row.username,
    acct: local ? row.username : `${row.username}@${row.domain}`,
    display_name: suspended ? "" : row.display_name,
    locked: !suspended && row.locked,
    bot: !suspended && (row.actor_type === "Service" || row.actor_type === "Application"),
    discoverable: suspended ? false : row.discoverable,
    indexable: !suspended && row.indexable,
    group: row.actor_type === "Group",
    created_at: midnight(row.created_at),
    note: suspended ? "" : row.note_html,
    url: row.url ?? row.uri,
    uri: row.uri,
    avatar: images.avatar ?? u.api(MISSING_AVATAR),
    avatar_static: images.avatarStill ?? u.api(MISSING_AVATAR),
    header: images.header ?? u.api(MISSING_HEADER),
    header_static: images.headerStill ?? u.api(MISSING_HEADER),
    followers_count: suspended ? 0 : row.followers_count,
    following_count: suspended ? 0 : row.following_count,
    statuses_count: suspended ? 0 : row.statuses_count,
    last_status_at: day(row.last_status_at),
    hide_collections: row.hide_collections,
    emojis: [],
    fields: suspended ? [] : row.fields.map((f) => ({ name: f.name, value: f.value_html, verified_at: f.verified_at })),
  };
  if (suspended) entity.suspended = true;
  if (row.silenced_at !== null) entity.limited = true;
  if (local) {
    // Opting out of search engines is a preference Rookery does not offer: nobody has.
    entity.noindex = false;
    // The role's badge is added per view (renderAccountView): roles change without the profile.
    entity.roles = [];
  }
  return entity;
}

/** The entity without its counters, rendered once per profile read (profiles are kept in memory). */
const rendered = new WeakMap<AccountRow, AccountEntity>();

function profileEntity(rt: Runtime, row: AccountRow): AccountEntity {
  let entity = rendered.get(row);
  if (!entity) {
    entity = renderAccount(rt, row);
    rendered.set(row, entity);
  }
  return entity;
}

/** The values of the entity that change without the profile changing. */
const CHANGING = [
  "followers_count",
  "following_count",
  "statuses_count",
  "last_status_at",
  "emojis",
  "roles",
  "moved",
] as const;
type Changing = Record<(typeof CHANGING)[number], unknown>;

/** The entity: the profile's values, and `d`. Whether it has roles and `moved` depends on the profile only. */
function shape(profile: AccountEntity, row: AccountRow, d: Changing): AccountEntity {
  const entity: AccountEntity = {
    ...profile,
    followers_count: d.followers_count as number,
    following_count: d.following_count as number,
    statuses_count: d.statuses_count as number,
    last_status_at: d.last_status_at as string | null,
    emojis: d.emojis as unknown[],
  };
  // A suspended account shows no role, nor a forwarding address.
  if (entity.roles && !profile.suspended) entity.roles = d.roles as AccountEntity["roles"];
  if (row.moved_to_account_id) entity.moved = d.moved as AccountEntity | null;
  return entity;
}

/** The changing values of `view`, the account it moved to rendered by `nest`. */
function changing(rt: Runtime, view: AccountView, nest: (v: AccountView) => unknown): Changing {
  const s = view.counters;
  const live = view.row.suspended_at === null;
  return {
    followers_count: live ? (s?.followers_count ?? 0) : 0,
    following_count: live ? (s?.following_count ?? 0) : 0,
    statuses_count: live ? (s?.statuses_count ?? 0) : 0,
    last_status_at: s?.last_status_at ?? null,
    emojis: live ? renderCustomEmojis(rt.config, view.emojis) : [],
    roles: highlightedRoles(view.role),
    moved: view.moved && live ? nest(view.moved) : null,
  };
}

/** Renders a loaded account with its counters now. */
export function renderAccountView(rt: Runtime, view: AccountView): AccountEntity {
  return shape(
    profileEntity(rt, view.row),
    view.row,
    changing(rt, view, (v) => renderAccountView(rt, v)),
  );
}

/** Templates by profile: a profile read anew is a new row. */
const templates = new WeakMap<AccountRow, Template>();
const HOLES = holes(CHANGING);

/** Writes the entity renderAccountView makes, as JSON. */
export function writeAccount(rt: Runtime, out: JsonOut, view: AccountView): void {
  let template = templates.get(view.row);
  if (!template) {
    template = makeTemplate(shape(profileEntity(rt, view.row), view.row, HOLES));
    templates.set(view.row, template);
  }
  fill(
    out,
    template,
    changing(rt, view, (v) => new Writer(writeAccount, rt, v)),
  );
}

/** Renders loaded accounts, in the map's order (loadAccountViews keeps the order it was asked). */
export function renderAccounts(rt: Runtime, views: ReadonlyMap<string, AccountView>): AccountEntity[] {
  return [...views.values()].map((view) => renderAccountView(rt, view));
}

/** Mastodon shows the day an account was made, not the moment. */
function midnight(date: Date): string {
  return `${date.toISOString().slice(0, 10)}T00:00:00.000Z`;
}

/** CredentialAccount: the caller's own account, with the source values and their role. */
export function renderCredentialAccount(rt: Runtime, view: CredentialView) {
  const { row, settings: s } = view;
  const entity = renderAccount(rt, row);
  return {
    ...entity,
    roles: entity.suspended ? [] : highlightedRoles(view.role),
    emojis: entity.suspended ? [] : renderCustomEmojis(rt.config, view.emojis),
    ...(view.moved && !entity.suspended && { moved: renderAccountView(rt, view.moved) }),
    source: {
      privacy: s.default_privacy ?? "public",
      sensitive: s.default_sensitive ?? false,
      language: s.default_language || null,
      quote_policy: s.default_quote_policy ?? "public",
      note: row.note,
      fields: row.fields.map((f) => ({ name: f.name, value: f.value, verified_at: f.verified_at })),
      follow_requests_count: view.followRequestsCount,
      hide_collections: row.hide_collections,
      discoverable: row.discoverable,
      indexable: row.indexable,
      attribution_domains: row.attribution_domains,
    },
    role: roleEntity(view.role),
  };
}
