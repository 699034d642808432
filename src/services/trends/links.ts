// Trending links (GET /api/v1/trends/links) and their review: the preview cards of public statuses
// of the last week by discoverable accounts, each scored by the distinct accounts that shared it,
// an account counting less the longer ago it last did (as hashtags, tags.ts). A card trends once
// moderators allowed it, or allowed its site (its provider) and did not reject the card itself
// (Mastodon's PreviewCard#trendable?); until then it waits for review.
import { notFound } from "../../domain/errors.ts";
import { idFloor, idTime, isId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import type { PreviewCardRow } from "../cards/views.ts";
import { visibleTo } from "../visibility/sql.ts";
import { type HistoryDay, historyFloor, weekHistory } from "./history.ts";

const WINDOW_MS = 7 * 86_400_000;
const HALF_LIFE_MS = 86_400_000;

export interface LinkTrend {
  card: PreviewCardRow;
  history: HistoryDay[];
  requiresReview: boolean;
}

type Provider = { trendable: boolean | null; reviewed_at: Date | null };

const hostOf = (url: string) => new URL(url).hostname;

/** Mastodon's PreviewCard#trendable? and #requires_review?. */
function standing(card: PreviewCardRow, provider: Provider | undefined) {
  return {
    trendable: card.trendable ?? provider?.trendable === true,
    requiresReview: card.trendable === null && (!provider || provider.reviewed_at === null),
  };
}

async function providersOf(rt: Runtime, cards: PreviewCardRow[]): Promise<Map<string, Provider>> {
  const hosts = [...new Set(cards.map((c) => hostOf(c.url)))];
  if (hosts.length === 0) return new Map();
  const rows = await rt.db
    .selectFrom("preview_card_providers")
    .select(["domain", "trendable", "reviewed_at"])
    .where("domain", "in", hosts)
    .execute();
  return new Map(rows.map((p) => [p.domain, p]));
}

/** Cards shared in the window, best first: allowed ones, ones awaiting review, or both. */
async function scoredLinks(rt: Runtime, which: "allowed" | "both"): Promise<LinkTrend[]> {
  const now = Date.now();
  const uses = await rt.db
    .selectFrom("preview_cards_statuses as pcs")
    .innerJoin("statuses as s", "s.id", "pcs.status_id")
    .innerJoin("accounts as a", "a.id", "s.account_id")
    .select(["pcs.preview_card_id", "s.account_id", (eb) => eb.fn.max("s.id").as("last_id")])
    .where("s.id", ">", idFloor(new Date(now - WINDOW_MS)))
    .where("s.visibility", "=", "public")
    .where("a.discoverable", "=", true)
    .where(visibleTo(null, "s"))
    .groupBy(["pcs.preview_card_id", "s.account_id"])
    .execute();
  const byCard = new Map<string, number>();
  for (const u of uses) {
    const age = now - idTime(String(u.last_id)).getTime();
    byCard.set(u.preview_card_id, (byCard.get(u.preview_card_id) ?? 0) + 0.5 ** (Math.max(age, 0) / HALF_LIFE_MS));
  }
  if (byCard.size === 0) return [];
  const cards = await rt.db
    .selectFrom("preview_cards")
    .selectAll()
    .where("id", "in", [...byCard.keys()])
    .where((eb) => eb.or([eb("title", "<>", ""), eb("html", "<>", "")]))
    .execute();
  const providers = await providersOf(rt, cards);
  const kept = cards
    .map((card) => ({ card, ...standing(card, providers.get(hostOf(card.url))) }))
    .filter((c) => c.trendable || (which === "both" && c.requiresReview))
    .sort((a, b) => byCard.get(b.card.id)! - byCard.get(a.card.id)! || a.card.url.localeCompare(b.card.url));
  const history = await linkHistory(
    rt,
    kept.map((c) => c.card.id),
  );
  return kept.map((c) => ({ card: c.card, history: history.get(c.card.id)!, requiresReview: c.requiresReview }));
}

async function linkHistory(rt: Runtime, cardIds: string[]): Promise<Map<string, HistoryDay[]>> {
  const rows =
    cardIds.length === 0
      ? []
      : await rt.db
          .selectFrom("preview_cards_statuses as pcs")
          .innerJoin("statuses as s", "s.id", "pcs.status_id")
          .select(["pcs.preview_card_id as key", "s.id", "s.account_id"])
          .where("pcs.preview_card_id", "in", cardIds)
          .where("s.id", ">=", historyFloor())
          .where(visibleTo(null, "s"))
          .execute();
  return weekHistory(cardIds, rows);
}

export async function trendingLinks(rt: Runtime, page: { limit: number; offset: number }): Promise<LinkTrend[]> {
  return (await scoredLinks(rt, "allowed")).slice(page.offset, page.offset + page.limit);
}

/** Links trending or awaiting review, best first: what moderators review. */
export async function linkTrendCandidates(rt: Runtime, limit: number): Promise<LinkTrend[]> {
  return (await scoredLinks(rt, "both")).slice(0, limit);
}

/** The card of a link allowed to trend, for its timeline; 404 otherwise, as on Mastodon. */
export async function trendableCard(rt: Runtime, url: string): Promise<PreviewCardRow> {
  const card = await rt.db.selectFrom("preview_cards").selectAll().where("url", "=", url).executeTakeFirst();
  if (!card) throw notFound();
  const providers = await providersOf(rt, [card]);
  if (!standing(card, providers.get(hostOf(card.url))).trendable) throw notFound();
  return card;
}

/** A card by id, for review; 404 for none. */
export async function cardById(rt: Runtime, id: string): Promise<LinkTrend> {
  const card = isId(id)
    ? await rt.db.selectFrom("preview_cards").selectAll().where("id", "=", id).executeTakeFirst()
    : undefined;
  if (!card) throw notFound();
  const providers = await providersOf(rt, [card]);
  const history = await linkHistory(rt, [card.id]);
  return {
    card,
    history: history.get(card.id)!,
    requiresReview: standing(card, providers.get(hostOf(card.url))).requiresReview,
  };
}
