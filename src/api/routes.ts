// Every router of the HTTP API, in one list. Each file holds the routes of one Mastodon area,
// written with their full paths so that a path can be found with a search.
import type { Hono } from "hono";
import type { AppEnv } from "../http/hono.ts";
import { aboutPages } from "../web/about.ts";
import { passwordResetPages } from "../web/account/password_reset.ts";
import { exportPages } from "../web/account/settings_export.ts";
import { importPages } from "../web/account/settings_import.ts";
import { movePages } from "../web/account/settings_moves.ts";
import { settingsPages } from "../web/account/settings_pages.ts";
import { signUpPages } from "../web/account/sign_up.ts";
import { twoFactorSignInPages } from "../web/account/two_factor_sign_in.ts";
import { adminPages } from "../web/admin/pages.ts";
import { confirmationPages } from "../web/confirmation.ts";
import { homePage } from "../web/home.ts";
import { oauthPages } from "../web/oauth.ts";
import { publicFeeds } from "../web/public_pages/feeds.ts";
import { publicPages } from "../web/public_pages/routes.ts";
import { health } from "./health.ts";
import { mediaProxy } from "./media_proxy.ts";
import { oauthApi } from "./oauth/token.ts";
import { oembedApi } from "./oembed.ts";
import { accountStatusesApi } from "./v1/account_statuses.ts";
import { accounts } from "./v1/accounts.ts";
import { credentials } from "./v1/accounts_credentials.ts";
import { accountsRelationships } from "./v1/accounts_relationships.ts";
import { adminAccounts } from "./v1/admin/accounts.ts";
import { adminCanonicalEmailBlocks } from "./v1/admin/canonical_email_blocks.ts";
import { adminDomainAllows } from "./v1/admin/domain_allows.ts";
import { adminDomainBlocks } from "./v1/admin/domain_blocks.ts";
import { adminEmailDomainBlocks } from "./v1/admin/email_domain_blocks.ts";
import { adminIpBlocks } from "./v1/admin/ip_blocks.ts";
import { adminMeasures } from "./v1/admin/measures.ts";
import { adminReports } from "./v1/admin/reports.ts";
import { adminTags } from "./v1/admin/tags.ts";
import { adminTrends } from "./v1/admin/trends.ts";
import { announcements } from "./v1/announcements.ts";
import { apps } from "./v1/apps.ts";
import { blocks } from "./v1/blocks.ts";
import { conversations } from "./v1/conversations.ts";
import { customEmojis } from "./v1/custom_emojis.ts";
import { directoryApi } from "./v1/directory.ts";
import { domainBlocks } from "./v1/domain_blocks.ts";
import { emails } from "./v1/emails.ts";
import { endorsements } from "./v1/endorsements.ts";
import { featuredTagsApi } from "./v1/featured_tags.ts";
import { filtersV1 } from "./v1/filters.ts";
import { followRequests } from "./v1/follow_requests.ts";
import { instanceV1 } from "./v1/instance.ts";
import { listsApi } from "./v1/lists.ts";
import { markers } from "./v1/markers.ts";
import { media } from "./v1/media.ts";
import { mutes } from "./v1/mutes.ts";
import { notificationRequests } from "./v1/notification_requests.ts";
import { notifications } from "./v1/notifications.ts";
import { polls } from "./v1/polls.ts";
import { preferences } from "./v1/preferences.ts";
import { push } from "./v1/push.ts";
import { reports } from "./v1/reports.ts";
import { scheduledStatuses } from "./v1/scheduled_statuses.ts";
import { statusActions } from "./v1/status_actions.ts";
import { statusQuotes } from "./v1/status_quotes.ts";
import { statuses } from "./v1/statuses.ts";
import { streamingApi } from "./v1/streaming.ts";
import { suggestionsApi } from "./v1/suggestions.ts";
import { tags } from "./v1/tags.ts";
import { timelines } from "./v1/timelines.ts";
import { trends } from "./v1/trends.ts";
import { asyncRefreshes } from "./v1_alpha/async_refreshes.ts";
import { adminAccountsV2 } from "./v2/admin/accounts.ts";
import { filtersV2 } from "./v2/filters.ts";
import { instanceV2 } from "./v2/instance.ts";
import { mediaV2 } from "./v2/media.ts";
import { notificationsV2 } from "./v2/notifications.ts";
import { searchApi } from "./v2/search.ts";
import { wellKnown } from "./well_known.ts";

// Static paths under /api/v1/accounts/ (relationships, familiar_followers) come before any router
// with /api/v1/accounts/:id, which would otherwise take them for an id.
export const routers: Hono<AppEnv>[] = [
  wellKnown,
  instanceV1,
  instanceV2,
  accountsRelationships,
  followRequests,
  blocks,
  mutes,
  domainBlocks,
  endorsements,
  oauthApi,
  oauthPages,
  confirmationPages,
  aboutPages,
  adminPages,
  signUpPages,
  passwordResetPages,
  twoFactorSignInPages,
  settingsPages,
  exportPages,
  importPages,
  movePages,
  apps,
  credentials,
  accountStatusesApi,
  accounts,
  emails,
  featuredTagsApi,
  filtersV1,
  filtersV2,
  listsApi,
  markers,
  preferences,
  statuses,
  asyncRefreshes,
  statusActions,
  statusQuotes,
  tags,
  timelines,
  polls,
  scheduledStatuses,
  reports,
  adminReports,
  adminAccounts,
  adminAccountsV2,
  adminDomainBlocks,
  adminDomainAllows,
  adminEmailDomainBlocks,
  adminCanonicalEmailBlocks,
  adminIpBlocks,
  adminTags,
  adminTrends,
  adminMeasures,
  conversations,
  // Requests first: /api/v1/notifications/requests is not a notification id.
  notificationRequests,
  notifications,
  notificationsV2,
  media,
  mediaV2,
  mediaProxy,
  push,
  searchApi,
  directoryApi,
  suggestionsApi,
  customEmojis,
  announcements,
  trends,
  streamingApi,
  publicPages,
  oembedApi,
  publicFeeds,
  homePage,
  health,
];
