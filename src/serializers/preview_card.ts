// The PreviewCard entity (Mastodon 4.3's, with `authors`), and TrendsLink, a card with its history.
import type { Config } from "../config.ts";
import { mediaStorage } from "../media/storage.ts";
import type { AccountView } from "../services/accounts/views.ts";
import type { CardView, PreviewCardRow } from "../services/cards/views.ts";
import type { Provider } from "../services/moderation/admin_links.ts";
import type { HistoryDay } from "../services/trends/history.ts";

/** The card as the status linking it at `url` shows it; `account` renders the author's account. */
export function renderCard(
  config: Config,
  v: { card: PreviewCardRow; url: string; author: AccountView | null },
  account: (a: AccountView) => unknown,
) {
  const c = v.card;
  return {
    url: v.url,
    title: c.title,
    description: c.description,
    language: c.language,
    type: c.type,
    author_name: c.author_name,
    author_url: c.author_url,
    provider_name: c.provider_name,
    provider_url: c.provider_url,
    html: c.html,
    width: c.width,
    height: c.height,
    image: c.image_key ? mediaStorage(config).url(c.image_key) : null,
    image_description: c.image_description,
    embed_url: c.embed_url,
    blurhash: c.blurhash,
    published_at: c.published_at ? c.published_at.toISOString() : null,
    authors: [{ name: c.author_name, url: c.author_url, account: v.author ? account(v.author) : null }],
  };
}

export type { CardView };

/** TrendsLink: a card with its week of history. */
export function renderLinkTrend(
  config: Config,
  v: CardView,
  history: HistoryDay[],
  account: (a: AccountView) => unknown,
) {
  return { ...renderCard(config, v, account), history };
}

/** REST::Admin::Trends::LinkSerializer: TrendsLink with its id and whether it awaits review. */
export function renderAdminLinkTrend(
  config: Config,
  v: CardView,
  t: { history: HistoryDay[]; requiresReview: boolean },
  account: (a: AccountView) => unknown,
) {
  return { id: v.card.id, ...renderLinkTrend(config, v, t.history, account), requires_review: t.requiresReview };
}

/** REST::Admin::Trends::Links::PreviewCardProviderSerializer. */
export function renderProvider(p: Provider) {
  return {
    id: p.id,
    domain: p.domain,
    trendable: p.trendable === true,
    reviewed_at: p.reviewed_at ? p.reviewed_at.toISOString() : null,
    requested_review_at: p.requested_review_at ? p.requested_review_at.toISOString() : null,
    requires_review: p.reviewed_at === null,
  };
}
