// Row types of every table, as both databases return them through the adapter:
// ids are strings, booleans are booleans, timestamps are Dates, jsonb is parsed.
import type { ColumnType } from "kysely";

/** A jsonb column: parsed on select, written as a JSON string. */
export type Json<T> = ColumnType<T, string, string>;
/** A column with a database default: optional on insert. */
type Default<T> = ColumnType<T, T | undefined, T>;

export interface AccountsTable {
  id: string;
  username: string;
  domain: string | null;
  acct_key: string;
  display_name: Default<string>;
  note: Default<string>;
  note_html: Default<string>;
  fields: ColumnType<AccountField[], string | undefined, string>;
  /** Websites allowed to credit this account as author of their pages. */
  attribution_domains: ColumnType<string[], string | undefined, string>;
  avatar_file: string | null;
  avatar_remote_url: string | null;
  header_file: string | null;
  header_remote_url: string | null;
  actor_type: Default<string>;
  locked: Default<boolean>;
  discoverable: boolean | null;
  indexable: Default<boolean>;
  hide_collections: Default<boolean>;
  uri: string;
  url: string | null;
  inbox_url: string | null;
  shared_inbox_url: string | null;
  outbox_url: string | null;
  followers_url: string | null;
  following_url: string | null;
  featured_url: string | null;
  public_key: string | null;
  private_key: string | null;
  moved_to_account_id: string | null;
  /** Actor URIs of the account's other accounts (a local one's from its aliases, a remote one's as its actor says). */
  also_known_as: ColumnType<string[], string | undefined, string>;
  suspended_at: Date | null;
  silenced_at: Date | null;
  /** A moderator forces the media of this account's statuses sensitive. */
  sensitized_at: Default<Date | null>;
  fetched_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface AccountField {
  name: string;
  /** The value as written (local) or as text (remote). */
  value: string;
  /** The value rendered to HTML, as the API shows it. */
  value_html: string;
  verified_at: string | null;
}

export interface AccountStatsTable {
  account_id: string;
  followers_count: Default<number>;
  following_count: Default<number>;
  statuses_count: Default<number>;
  last_status_at: Date | null;
}

/** A staff role (Mastodon's user_roles); -99 is "everyone", whose permissions every user has. */
export interface RolesTable {
  id: string;
  name: Default<string>;
  color: Default<string>;
  position: Default<number>;
  /** Mastodon's permission bitmask (UserRole::FLAGS). */
  permissions: Default<number>;
  highlighted: Default<boolean>;
  created_at: Date;
  updated_at: Date;
}

export interface UserSettings {
  default_privacy?: "public" | "unlisted" | "private" | "direct";
  default_sensitive?: boolean;
  default_language?: string | null;
  expand_media?: "default" | "show_all" | "hide_all";
  expand_spoilers?: boolean;
  /** Who may quote new posts by default (Mastodon's `source.quote_policy`). */
  default_quote_policy?: "public" | "followers" | "nobody";
}

/** Sign-up attempts an email-domain block met: one row per block, day and address. */
export interface EmailDomainBlockAttemptsTable {
  block_id: string;
  /** Days since the epoch (UTC). */
  day: number;
  ip: string;
  uses: number;
}

export interface UsersTable {
  id: string;
  account_id: string;
  email: string;
  password_hash: string;
  /** Null: the "everyone" role only. */
  role_id: Default<string | null>;
  confirmed_at: Date | null;
  confirmation_token_hash: string | null;
  approved: Default<boolean>;
  disabled: Default<boolean>;
  locale: string | null;
  sign_up_reason: string | null;
  sign_up_ip: string | null;
  date_of_birth: string | null;
  /** The app the user signed up through, when they did so from an app. */
  created_by_application_id: Default<string | null>;
  settings: ColumnType<UserSettings, string | undefined, string>;
  current_sign_in_at: Date | null;
  created_at: Date;
  updated_at: Date;
  /** A password reset link's token (its hash), valid for a while after it was sent. */
  reset_password_token_hash: Default<string | null>;
  reset_password_sent_at: Default<Date | null>;
  /** A new address waiting for its confirmation link (confirmation_token_hash) to be followed. */
  unconfirmed_email: Default<string | null>;
  /** The TOTP secret, sealed (secrets.ts); set while setting up, and in use once otp_enabled. */
  otp_secret: Default<string | null>;
  otp_enabled: Default<boolean>;
  /** The TOTP time step of the last code accepted: no code is accepted twice. */
  otp_last_step: Default<number | null>;
  /** The invite the user signed up through. */
  invite_id: Default<string | null>;
}

export interface OAuthApplicationsTable {
  id: string;
  name: string;
  website: string | null;
  redirect_uris: Json<string[]>;
  scopes: string;
  client_id: string;
  client_secret_hash: string;
  owner_user_id: string | null;
  created_at: Date;
}

export interface OAuthAccessGrantsTable {
  id: string;
  code_hash: string;
  application_id: string;
  user_id: string;
  redirect_uri: string;
  scopes: string;
  code_challenge: string | null;
  code_challenge_method: string | null;
  expires_at: Date;
  used_at: Date | null;
  created_at: Date;
  /** The token the code was exchanged for. */
  access_token_id: string | null;
}

export interface OAuthAccessTokensTable {
  id: string;
  token_hash: string;
  application_id: string | null;
  user_id: string | null;
  scopes: string;
  created_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

export interface FollowsTable {
  id: string;
  account_id: string;
  target_account_id: string;
  show_reblogs: Default<boolean>;
  notify: Default<boolean>;
  languages: ColumnType<string[] | null, string | null | undefined, string | null>;
  uri: string | null;
  created_at: Date;
}

export interface BlocksTable {
  id: string;
  account_id: string;
  target_account_id: string;
  uri: string | null;
  created_at: Date;
}

export interface MutesTable {
  id: string;
  account_id: string;
  target_account_id: string;
  hide_notifications: Default<boolean>;
  expires_at: Date | null;
  created_at: Date;
}

export interface AccountDomainBlocksTable {
  id: string;
  account_id: string;
  domain: string;
  created_at: Date;
}

export interface AccountPinsTable {
  id: string;
  account_id: string;
  target_account_id: string;
  created_at: Date;
}

export interface AccountNotesTable {
  id: string;
  account_id: string;
  target_account_id: string;
  comment: string;
  created_at: Date;
  updated_at: Date;
}

export const NOTIFICATION_TYPES = [
  "mention",
  "status",
  "reblog",
  "follow",
  "follow_request",
  "favourite",
  "poll",
  "update",
  "admin.sign_up",
  "admin.report",
  "severed_relationships",
  "moderation_warning",
  "quote",
  "quoted_update",
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

export interface NotificationsTable {
  id: string;
  /** The recipient. */
  account_id: string;
  from_account_id: string;
  type: NotificationType;
  status_id: string | null;
  report_id: string | null;
  account_warning_id: Default<string | null>;
  account_severance_id: Default<string | null>;
  group_key: string;
  filtered: Default<boolean>;
  created_at: Date;
}

export type Visibility = "public" | "unlisted" | "private" | "direct";

export interface StatusesTable {
  id: string;
  uri: string;
  url: string | null;
  account_id: string;
  local: boolean;
  visibility: Visibility;
  text: Default<string>;
  content: Default<string>;
  spoiler_text: Default<string>;
  sensitive: Default<boolean>;
  language: string | null;
  in_reply_to_id: string | null;
  in_reply_to_account_id: string | null;
  reblog_of_id: string | null;
  conversation_id: string | null;
  application_id: string | null;
  poll_id: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Date;
  updated_at: Date;
  edited_at: Date | null;
  deleted_at: Date | null;
  /** A moderator's review for trends (null until reviewed). */
  trendable: Default<boolean | null>;
  /** Who may quote it, as Mastodon stores it: automatic approvals << 16 | manual ones (see visibility/quote.ts). */
  quote_approval_policy: Default<number>;
  /** When its replies collection was last walked (a remote status's; migration 0085). */
  fetched_replies_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface StatusStatsTable {
  status_id: string;
  replies_count: Default<number>;
  reblogs_count: Default<number>;
  favourites_count: Default<number>;
}

export interface DomainBlocksTable {
  id: string;
  domain: string;
  severity: "silence" | "suspend" | "noop";
  reject_media: Default<boolean>;
  reject_reports: Default<boolean>;
  obfuscate: Default<boolean>;
  public_comment: string | null;
  private_comment: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface RulesTable {
  id: string;
  text: string;
  hint: Default<string>;
  priority: Default<number>;
  created_at: Date;
  updated_at: Date;
}

export interface SiteSettingsTable {
  key: string;
  value: Json<unknown>;
  updated_at: Date;
}

export interface WeeklyActivityTable {
  week: string;
  account_id: string;
}

export interface JobsTable {
  id: string;
  type: string;
  payload: Json<unknown>;
  run_at: Date;
  attempts: Default<number>;
  max_attempts: number;
  locked_until: Date | null;
  /** Who holds the lease: `host:pid:nonce` (src/jobs/queue.ts). */
  locked_by: string | null;
  last_error: string | null;
  failed_at: Date | null;
  created_at: Date;
}

export type NotificationPolicyValue = "accept" | "filter" | "drop";

export interface NotificationPoliciesTable {
  account_id: string;
  for_not_following: NotificationPolicyValue;
  for_not_followers: NotificationPolicyValue;
  for_new_accounts: NotificationPolicyValue;
  for_private_mentions: NotificationPolicyValue;
  for_limited_accounts: NotificationPolicyValue;
}

export interface NotificationRequestsTable {
  id: string;
  account_id: string;
  from_account_id: string;
  last_status_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface NotificationPermissionsTable {
  account_id: string;
  from_account_id: string;
  created_at: Date;
}

export interface AccountConversationsTable {
  id: string;
  account_id: string;
  conversation_id: string;
  participants: string;
  status_ids: Json<string[]>;
  last_status_id: string;
  unread: boolean;
}

export type ReportCategory = "spam" | "legal" | "violation" | "other";

export interface ReportsTable {
  id: string;
  /** The reporter. */
  account_id: string;
  target_account_id: string;
  category: ReportCategory;
  comment: string;
  status_ids: Json<string[]>;
  rule_ids: Json<string[]>;
  forwarded: boolean;
  action_taken_at: Date | null;
  /** The moderator who took the report on. */
  assigned_account_id: Default<string | null>;
  /** The moderator who resolved it. */
  action_taken_by_account_id: Default<string | null>;
  created_at: Date;
  /** Null only for reports made before moderation existed; read as created_at. */
  updated_at: Date | null;
  /** The id of the report's Flag: ours when forwarded, the other server's when it came from one. */
  uri: Default<string | null>;
}

export interface KvTable {
  key: string;
  value: Json<unknown>;
  expires_at: Date | null;
}

export interface MarkersTable {
  account_id: string;
  timeline: "home" | "notifications";
  last_read_id: string;
  version: number;
  updated_at: Date;
}

export interface WebSessionsTable {
  id: string;
  token_hash: string;
  user_id: string;
  ip: string | null;
  user_agent: string | null;
  created_at: Date;
  last_seen_at: Date;
}

export interface SignInPlacesTable {
  user_id: string;
  ip: string;
  device: string;
  first_seen_at: Date;
  last_seen_at: Date;
}

export interface InvitesTable {
  id: string;
  /** Who made it. */
  user_id: string;
  code: string;
  /** Null: no limit. */
  max_uses: number | null;
  uses: Default<number>;
  /** Null: never. */
  expires_at: Date | null;
  created_at: Date;
}

/** A two-factor recovery code not used yet, as a keyed hash (src/services/auth/two_factor.ts). */
export interface OtpRecoveryCodesTable {
  user_id: string;
  code_hash: string;
}

export interface RateLimitsTable {
  key: string;
  count: number;
  reset_at: Date;
}

export type FilterContext = "home" | "notifications" | "public" | "thread" | "account";
export type FilterAction = "warn" | "hide" | "blur";

export interface FiltersTable {
  id: string;
  account_id: string;
  title: string;
  context: Json<FilterContext[]>;
  action: FilterAction;
  expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface FilterKeywordsTable {
  id: string;
  filter_id: string;
  keyword: string;
  whole_word: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface FilterStatusesTable {
  id: string;
  filter_id: string;
  status_id: string;
  created_at: Date;
}

export type RepliesPolicy = "followed" | "list" | "none";

export interface ListsTable {
  id: string;
  account_id: string;
  title: string;
  replies_policy: RepliesPolicy;
  exclusive: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface ListAccountsTable {
  id: string;
  list_id: string;
  account_id: string;
  follow_id: string;
  created_at: Date;
}

export interface StatusMentionsTable {
  id: string;
  status_id: string;
  account_id: string;
  /** Taken out of the status by an edit: it keeps the account's access, shows and notifies nothing. */
  silent: Default<boolean>;
}

export interface TagsTable {
  id: string;
  /** The normalized name: the key for lookups. */
  name: string;
  /** As first written. */
  display_name: string;
  last_status_at: Date | null;
  created_at: Date;
  /** An operator's review: whether it may trend (null until reviewed). */
  trendable: ColumnType<boolean | null, boolean | null | undefined, boolean | null>;
  reviewed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Moderators' say on whether the tag may be used in new statuses, and listed (null: not decided). */
  usable: Default<boolean | null>;
  listable: Default<boolean | null>;
}

export interface FeaturedTagsTable {
  id: string;
  account_id: string;
  tag_id: string;
  /** As the person wrote it. */
  name: string;
  created_at: Date;
}

export interface StatusTagsTable {
  tag_id: string;
  status_id: string;
}

/** favourites, bookmarks and status_pins share this shape. */
export interface AccountStatusTable {
  id: string;
  account_id: string;
  status_id: string;
  created_at: Date;
}

export interface ConversationMutesTable {
  id: string;
  account_id: string;
  conversation_id: string;
}

export interface StatusEditsTable {
  id: string;
  status_id: string;
  account_id: string;
  text: string;
  content: string;
  spoiler_text: string;
  sensitive: boolean;
  language: string | null;
  /** The media the version showed, in order, as they were then. */
  media: ColumnType<EditedMedia[] | null, string | null | undefined, string | null>;
  created_at: Date;
  /** The options of the poll the version showed; null without one. */
  poll_options: ColumnType<string[] | null, string | null | undefined, string | null>;
}

export interface EditedMedia {
  id: string;
  description: string | null;
  focus: { x: number; y: number } | null;
}

export interface TagFollowsTable {
  id: string;
  account_id: string;
  tag_id: string;
  created_at: Date;
}

export interface FeedEntriesTable {
  feed_id: string;
  status_id: string;
  account_id: string;
  reblog_of_id: string | null;
  reblog_author_id: string | null;
}

export interface FeedHorizonsTable {
  feed_id: string;
  horizon_id: string;
}

/** One row while the feeds are whole; PostgreSQL empties it with them after a crash (migration 0020). */
export interface FeedsIntactTable {
  intact: boolean;
}

export interface PollsTable {
  id: string;
  status_id: string;
  account_id: string;
  options: Json<string[]>;
  tallies: Json<number[]>;
  votes_count: Default<number>;
  voters_count: Default<number>;
  multiple: boolean;
  hide_totals: boolean;
  expires_at: Date;
  created_at: Date;
  updated_at: Date;
}

export interface PollVotesTable {
  id: string;
  poll_id: string;
  account_id: string;
  choice: number;
  created_at: Date;
}

export interface ScheduledStatusParams {
  text: string;
  spoiler_text: string;
  sensitive: boolean | null;
  visibility: string | null;
  language: string | null;
  in_reply_to_id: string | null;
  media_ids: string[];
  poll: { options: string[]; expires_in: number; multiple: boolean; hide_totals: boolean } | null;
  application_id: string | null;
  idempotency: string | null;
  /** Absent in what was scheduled before quotes. */
  quoted_status_id?: string | null;
  quote_approval_policy?: string | null;
}

export interface ScheduledStatusesTable {
  id: string;
  account_id: string;
  scheduled_at: Date;
  params: Json<ScheduledStatusParams>;
  created_at: Date;
}

export interface FeaturedAccountsTable {
  account_id: string;
  created_at: Date;
}

export interface SuggestionDismissalsTable {
  id: string;
  account_id: string;
  target_account_id: string;
  created_at: Date;
}

export interface CustomEmojisTable {
  id: string;
  shortcode: string;
  /** Null for this server's own. */
  domain: string | null;
  /** Storage keys of the image as uploaded and of its static PNG. */
  image_file: string;
  static_file: string;
  category: string | null;
  visible_in_picker: boolean;
  disabled: Default<boolean>;
  created_at: Date;
  updated_at: Date;
}

/** A custom emoji of another server, named by its Notes and actors (migration 0055). */
export interface RemoteEmojisTable {
  id: string;
  domain: string;
  shortcode: string;
  /** The Emoji's id, when it has one. */
  uri: string | null;
  /** The image, on the other server. */
  image_url: string;
  /** Staff disabled it (migration 0088): shown as its shortcode. */
  disabled: Default<boolean>;
  /** Its copy in this server's storage, and the still of its first frame, once fetched. */
  image_file: string | null;
  static_file: string | null;
  updated_at: Date;
  created_at: Date;
}

export interface AnnouncementMention {
  id: string;
  username: string;
  url: string;
  acct: string;
}

export interface AnnouncementsTable {
  id: string;
  text: string;
  content: string;
  mentions: Json<AnnouncementMention[]>;
  statuses: Json<{ id: string; url: string }[]>;
  starts_at: Date | null;
  ends_at: Date | null;
  all_day: boolean;
  /** False once staff unpublish it: kept, but shown to nobody. */
  published: Default<boolean>;
  /** Shown from then on, while published. */
  published_at: Date;
  created_at: Date;
  updated_at: Date;
}

export interface AnnouncementDismissalsTable {
  id: string;
  announcement_id: string;
  account_id: string;
}

export interface AnnouncementReactionsTable {
  id: string;
  announcement_id: string;
  account_id: string;
  /** A Unicode emoji, or a custom emoji's shortcode. */
  name: string;
  created_at: Date;
}

export interface AdminActionLogsTable {
  id: string;
  /** The staff member who acted. */
  account_id: string;
  action: string;
  target_type: string;
  target_id: string | null;
  /** How the target read when it was acted on (an acct, a domain, an address). */
  human_identifier: Default<string>;
  text: string | null;
  created_at: Date;
}

export type AccountWarningAction =
  | "none"
  | "disable"
  | "mark_statuses_as_sensitive"
  | "delete_statuses"
  | "sensitive"
  | "silence"
  | "suspend";

export interface AccountWarningsTable {
  id: string;
  /** The moderator; null once their account is gone. */
  account_id: string | null;
  target_account_id: string;
  action: AccountWarningAction;
  text: Default<string>;
  status_ids: Json<string[]>;
  report_id: string | null;
  created_at: Date;
}

export type SeveranceType = "domain_block" | "user_domain_block" | "account_suspension";

export interface RelationshipSeveranceEventsTable {
  id: string;
  type: SeveranceType;
  target_name: string;
  created_at: Date;
}

/** What one local account lost in a severance event. */
export interface AccountSeverancesTable {
  id: string;
  account_id: string;
  event_id: string;
  followers_count: number;
  following_count: number;
}

export type IpBlockSeverity = "sign_up_requires_approval" | "sign_up_block" | "no_access";

export interface IpBlocksTable {
  id: string;
  /** An address or network in CIDR form (`192.0.2.0/24`, `2001:db8::/32`). */
  ip: string;
  severity: IpBlockSeverity;
  comment: Default<string>;
  expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface EmailDomainBlocksTable {
  id: string;
  domain: string;
  allow_with_approval: Default<boolean>;
  created_at: Date;
  updated_at: Date;
}

export interface CanonicalEmailBlocksTable {
  id: string;
  canonical_email_hash: string;
  reference_account_id: string | null;
  created_at: Date;
}

export interface DomainAllowsTable {
  id: string;
  domain: string;
  created_at: Date;
  updated_at: Date;
}

export type QuoteState = "pending" | "accepted" | "rejected" | "revoked" | "deleted";

/** A status that quotes another, and how far the quoted author's authorization went (FEP-044f). */
export interface QuotesTable {
  id: string;
  /** The quoting status. */
  status_id: string;
  account_id: string;
  /** Null while a remote quoted status is not stored, or once it is gone. */
  quoted_status_id: string | null;
  quoted_account_id: string | null;
  state: QuoteState;
  /** A quote of a server that quotes without asking (`quoteUrl`, `_misskey_quote`). */
  legacy: Default<boolean>;
  /** The QuoteRequest that asked for it. */
  activity_uri: string | null;
  /** The QuoteAuthorization stamp of a remote quoted author. */
  approval_uri: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface Database {
  preview_cards: PreviewCardsTable;
  preview_cards_statuses: PreviewCardsStatusesTable;
  preview_card_providers: PreviewCardProvidersTable;
  admin_action_logs: AdminActionLogsTable;
  account_warnings: AccountWarningsTable;
  relationship_severance_events: RelationshipSeveranceEventsTable;
  account_severances: AccountSeverancesTable;
  ip_blocks: IpBlocksTable;
  email_domain_blocks: EmailDomainBlocksTable;
  canonical_email_blocks: CanonicalEmailBlocksTable;
  domain_allows: DomainAllowsTable;
  accounts: AccountsTable;
  account_stats: AccountStatsTable;
  email_domain_block_attempts: EmailDomainBlockAttemptsTable;
  roles: RolesTable;
  users: UsersTable;
  oauth_applications: OAuthApplicationsTable;
  oauth_access_grants: OAuthAccessGrantsTable;
  oauth_access_tokens: OAuthAccessTokensTable;
  follows: FollowsTable;
  follow_requests: FollowsTable;
  blocks: BlocksTable;
  mutes: MutesTable;
  account_domain_blocks: AccountDomainBlocksTable;
  account_pins: AccountPinsTable;
  account_notes: AccountNotesTable;
  notifications: NotificationsTable;
  notification_policies: NotificationPoliciesTable;
  notification_requests: NotificationRequestsTable;
  notification_permissions: NotificationPermissionsTable;
  reports: ReportsTable;
  account_conversations: AccountConversationsTable;
  statuses: StatusesTable;
  status_stats: StatusStatsTable;
  quotes: QuotesTable;
  domain_blocks: DomainBlocksTable;
  rules: RulesTable;
  site_settings: SiteSettingsTable;
  weekly_activity: WeeklyActivityTable;
  jobs: JobsTable;
  kv: KvTable;
  markers: MarkersTable;
  web_sessions: WebSessionsTable;
  rate_limits: RateLimitsTable;
  sign_in_places: SignInPlacesTable;
  otp_recovery_codes: OtpRecoveryCodesTable;
  invites: InvitesTable;
  filters: FiltersTable;
  filter_keywords: FilterKeywordsTable;
  filter_statuses: FilterStatusesTable;
  lists: ListsTable;
  list_accounts: ListAccountsTable;
  status_mentions: StatusMentionsTable;
  tags: TagsTable;
  featured_tags: FeaturedTagsTable;
  status_tags: StatusTagsTable;
  favourites: AccountStatusTable;
  bookmarks: AccountStatusTable;
  status_pins: AccountStatusTable;
  conversation_mutes: ConversationMutesTable;
  status_edits: StatusEditsTable;
  tag_follows: TagFollowsTable;
  feed_entries: FeedEntriesTable;
  feed_horizons: FeedHorizonsTable;
  feeds_intact: FeedsIntactTable;
  polls: PollsTable;
  poll_votes: PollVotesTable;
  scheduled_statuses: ScheduledStatusesTable;
  featured_accounts: FeaturedAccountsTable;
  suggestion_dismissals: SuggestionDismissalsTable;
  custom_emojis: CustomEmojisTable;
  remote_emojis: RemoteEmojisTable;
  announcements: AnnouncementsTable;
  announcement_dismissals: AnnouncementDismissalsTable;
  announcement_reactions: AnnouncementReactionsTable;
  media_attachments: MediaAttachmentsTable;
  push_subscriptions: PushSubscriptionsTable;
  push_deliveries: PushDeliveriesTable;
  actor_keys: ActorKeysTable;
  imports: ImportsTable;
  import_rows: ImportRowsTable;
  archives: ArchivesTable;
  relays: RelaysTable;
  account_aliases: AccountAliasesTable;
  account_migrations: AccountMigrationsTable;
  id_tags: IdTagsTable;
}

/** A local actor's key pairs, as JWK JSON text (migration 0034). */
export interface ActorKeysTable {
  owner: string;
  rsa_public: string;
  rsa_private: string;
  ed25519_public: string;
  ed25519_private: string;
  created_at: Date;
}

export type MediaType = "image" | "gifv" | "video" | "audio" | "unknown";

/** A file's size and shape, as the MediaAttachment entity's `meta` shows them. */
export interface MediaMeta {
  original?: Record<string, number | string>;
  small?: Record<string, number | string>;
  focus?: { x: number; y: number };
}

export interface MediaAttachmentsTable {
  id: string;
  account_id: string;
  status_id: string | null;
  /** Its place among the status's media; null once an edit took it out (kept for the history). */
  position: number | null;
  scheduled_status_id: string | null;
  type: MediaType;
  /** "done", "pending" (a job processes it) or "failed". */
  processing: "done" | "pending" | "failed";
  /** The upload as received, kept until a job has processed it. */
  upload_key: string | null;
  file_key: string | null;
  preview_key: string | null;
  content_type: string | null;
  file_size: number;
  meta: Json<MediaMeta>;
  description: string | null;
  blurhash: string | null;
  remote_url: string | null;
  /**
   * Where a remote attachment is in this server's cache (migration 0082): "pending" (a job fetches
   * it), "cached" (its files are ours), "failed" (refused: shown by its remote URL), "lazy" (not
   * kept, or dropped by retention: fetched when first asked for). Null for local media.
   */
  remote_state: RemoteMediaState | null;
  created_at: Date;
  updated_at: Date;
}

export type RemoteMediaState = "pending" | "cached" | "failed" | "lazy";

export type PushPolicy = "all" | "followed" | "follower" | "none";

export interface PushSubscriptionsTable {
  id: string;
  access_token_id: string;
  account_id: string;
  endpoint: string;
  key_p256dh: string;
  key_auth: string;
  standard: boolean;
  alerts: Json<Partial<Record<string, boolean>>>;
  policy: PushPolicy;
  sealed_token: string;
  created_at: Date;
  updated_at: Date;
}

export interface PushDeliveriesTable {
  subscription_id: string;
  notification_id: string;
  created_at: Date;
}

export type PreviewCardType = "link" | "photo" | "video" | "rich";

/** A link preview: one per URL, shared by every status linking it. */
export interface PreviewCardsTable {
  id: string;
  url: string;
  type: Default<PreviewCardType>;
  title: Default<string>;
  description: Default<string>;
  author_name: Default<string>;
  author_url: Default<string>;
  /** The account `fediverse:creator` names, when known here. */
  author_account_id: ColumnType<string | null, string | null | undefined, string | null>;
  provider_name: Default<string>;
  provider_url: Default<string>;
  /** An oEmbed or player iframe, sanitized. */
  html: Default<string>;
  width: Default<number>;
  height: Default<number>;
  embed_url: Default<string>;
  image_key: ColumnType<string | null, string | null | undefined, string | null>;
  image_description: Default<string>;
  blurhash: ColumnType<string | null, string | null | undefined, string | null>;
  language: ColumnType<string | null, string | null | undefined, string | null>;
  published_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Moderators' review for link trends (null: not reviewed). */
  trendable: ColumnType<boolean | null, boolean | null | undefined, boolean | null>;
  reviewed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  fetched_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  stale_at: Date;
  fetching_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Date;
  updated_at: Date;
}

export interface PreviewCardsStatusesTable {
  status_id: string;
  preview_card_id: string;
  /** The link as the status wrote it. */
  url: string;
}

/** A site cards come from, as moderators review it for link trends. */
export interface PreviewCardProvidersTable {
  id: string;
  domain: string;
  trendable: ColumnType<boolean | null, boolean | null | undefined, boolean | null>;
  reviewed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  requested_review_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Date;
  updated_at: Date;
}

/** An import of a CSV file Mastodon exports (migration 0078). */
export interface ImportsTable {
  id: string;
  account_id: string;
  /** following, lists, blocks, mutes, domain_blocks or bookmarks. */
  type: string;
  overwrite: boolean;
  file_name: string;
  /** running, pruning (an overwrite taking away what the file did not name) or finished. */
  state: string;
  total_rows: number;
  processed_rows: number;
  failed_rows: number;
  created_at: Date;
  finished_at: Date | null;
}

/** One row of an import's file: its fields, and once done what it named (`target`) or why it failed. */
export interface ImportRowsTable {
  import_id: string;
  row_number: number;
  data: Json<Record<string, string | boolean | string[] | null>>;
  done: boolean;
  target: string | null;
  error: string | null;
}

/**
 * An archive of an account (migration 0079); `file_key` is set once the job has stored it,
 * `failed_at` when the job gave up (migration 0091).
 */
export interface ArchivesTable {
  id: string;
  account_id: string;
  statuses_total: number;
  statuses_done: number;
  file_key: string | null;
  file_size: string | null;
  created_at: Date;
  finished_at: Date | null;
  failed_at: Date | null;
}

/** A relay this server follows (migration 0084), by the inbox it was added with. */
export interface RelaysTable {
  id: string;
  inbox_url: string;
  /** The id of the Follow last sent to it, which its Accept or Reject names; null when idle. */
  follow_activity_id: string | null;
  state: ColumnType<RelayState, RelayState | undefined, RelayState>;
  created_at: Date;
  updated_at: Date;
}

export type RelayState = "idle" | "pending" | "accepted" | "rejected";

/** Another account a local one says is also its own, which may move to it (migration 0080). */
export interface AccountAliasesTable {
  id: string;
  account_id: string;
  /** `user@domain` as given. */
  acct: string;
  uri: string;
  created_at: Date;
}

/** A move of a local account to another (migration 0080): the last one's date starts the cooldown. */
export interface AccountMigrationsTable {
  id: string;
  account_id: string;
  acct: string;
  target_account_id: string | null;
  followers_count: number;
  created_at: Date;
}

/** Where the next process's block of id tags starts (migration 0093): one row. */
export interface IdTagsTable {
  next: number;
}
