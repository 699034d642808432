// The review of trending links (Mastodon's Admin::Trends::Links): a card may trend or not, and so
// may every card of a site (its provider, a "publisher"), unless the card has a review of its own.
import { type Page, type PageResult, paginate } from "../../db/paginate.ts";
import { notFound } from "../../domain/errors.ts";
import { isId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import { cardById, type LinkTrend, linkTrendCandidates } from "../trends/links.ts";
import { logAction } from "./audit_log.ts";
import { requirePermission, type Staff } from "./staff.ts";

/** Links trending or waiting for review, best first. */
export function linkTrendsForReview(rt: Runtime, actor: Staff, limit: number): Promise<LinkTrend[]> {
  requirePermission(actor, "manageTaxonomies");
  return linkTrendCandidates(rt, limit);
}

/** Approves (or rejects) a link for trends. */
export async function reviewLinkTrend(rt: Runtime, actor: Staff, id: string, approve: boolean): Promise<LinkTrend> {
  requirePermission(actor, "manageTaxonomies");
  const { card } = await cardById(rt, id);
  await rt.db.transaction().execute(async (trx) => {
    await trx
      .updateTable("preview_cards")
      .set({ trendable: approve, reviewed_at: new Date() })
      .where("id", "=", card.id)
      .execute();
    await logAction(trx, actor, {
      action: approve ? "approve" : "reject",
      targetType: "PreviewCard",
      targetId: card.id,
      identifier: card.url,
    });
  });
  return cardById(rt, id);
}

export type Provider = Awaited<ReturnType<typeof getProvider>>;

async function getProvider(rt: Runtime, id: string) {
  const provider = isId(id)
    ? await rt.db.selectFrom("preview_card_providers").selectAll().where("id", "=", id).executeTakeFirst()
    : undefined;
  if (!provider) throw notFound();
  return provider;
}

export async function listProviders(rt: Runtime, actor: Staff, page: Page): Promise<PageResult<Provider>> {
  requirePermission(actor, "manageTaxonomies");
  return paginate(rt.db.selectFrom("preview_card_providers").selectAll(), "id", page);
}

/** Lets every card of a site trend (unless rejected itself), or none of them. */
export async function reviewProvider(rt: Runtime, actor: Staff, id: string, approve: boolean): Promise<Provider> {
  requirePermission(actor, "manageTaxonomies");
  const provider = await getProvider(rt, id);
  const now = new Date();
  await rt.db.transaction().execute(async (trx) => {
    await trx
      .updateTable("preview_card_providers")
      .set({ trendable: approve, reviewed_at: now, updated_at: now })
      .where("id", "=", provider.id)
      .execute();
    await logAction(trx, actor, {
      action: approve ? "approve" : "reject",
      targetType: "PreviewCardProvider",
      targetId: provider.id,
      identifier: provider.domain,
    });
  });
  return getProvider(rt, id);
}
