// The preview cards of statuses, for src/services/statuses/views.ts: a card shows once it has been
// fetched with something to show, under the link as the status wrote it.
import type { Selectable } from "kysely";
import type { Db } from "../../db/index.ts";
import type { PreviewCardsTable } from "../../db/schema.ts";
import type { Runtime } from "../../runtime.ts";
import { type AccountView, loadAccountViews } from "../accounts/views.ts";

export type PreviewCardRow = Selectable<PreviewCardsTable>;

/** A card as a status shows it: `url` is the link the status wrote. */
export interface StatusCard {
  card: PreviewCardRow;
  url: string;
}

/** A card with its author's account (`fediverse:creator`), when known here. */
export interface CardView extends StatusCard {
  author: AccountView | null;
}

export async function loadCards(db: Db, statusIds: string[]): Promise<Map<string, StatusCard>> {
  const rows = await db
    .selectFrom("preview_cards_statuses as pcs")
    .innerJoin("preview_cards as c", "c.id", "pcs.preview_card_id")
    .selectAll("c")
    .select(["pcs.status_id", "pcs.url as status_url"])
    .where("pcs.status_id", "in", statusIds)
    .where((eb) => eb.or([eb("c.title", "<>", ""), eb("c.html", "<>", "")]))
    .execute();
  return new Map(
    rows.map(({ status_id, status_url, ...card }) => [status_id, { card: card as PreviewCardRow, url: status_url }]),
  );
}

/** The accounts cards name as their authors: rare, so no query when there are none. */
export async function cardAuthors(rt: Runtime, cards: StatusCard[]): Promise<Map<string, AccountView>> {
  const ids = cards.flatMap((c) => c.card.author_account_id ?? []);
  return ids.length > 0 ? loadAccountViews(rt, ids) : new Map();
}

export const withAuthor = (c: StatusCard, authors: Map<string, AccountView>): CardView => ({
  ...c,
  author: authors.get(c.card.author_account_id ?? "") ?? null,
});

/** Cards with their authors' accounts, for the lists of cards (trends). */
export async function withAuthors(rt: Runtime, cards: StatusCard[]): Promise<CardView[]> {
  const authors = await cardAuthors(rt, cards);
  return cards.map((c) => withAuthor(c, authors));
}
