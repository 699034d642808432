// The accounts a relationship action is about, and the one acting. An account one cannot act on
// answers 404 whichever the reason: it does not exist, it is suspended, or it is a local sign-up
// still unconfirmed or awaiting approval (Mastodon hides those the same way).
import type { Db } from "../../db/index.ts";
import { notFound } from "../../domain/errors.ts";
import { isId } from "../../domain/ids.ts";

export interface RelationshipParty {
  id: string;
  username: string;
  /** Null for local accounts. */
  domain: string | null;
  locked: boolean;
  hide_collections: boolean;
  moved_to_account_id: string | null;
  silenced_at: Date | null;
}

/** The account behind `id`, or a 404. */
export async function requireAccount(db: Db, id: string): Promise<RelationshipParty> {
  const party = (await relationshipParties(db, [id])).get(id);
  if (!party) throw notFound();
  return party;
}

/** Those of `ids` one can act on, found in one query: the ones requireAccount would not refuse. */
export async function relationshipParties(db: Db, ids: readonly string[]): Promise<Map<string, RelationshipParty>> {
  const wanted = [...new Set(ids.filter(isId))];
  const found = new Map<string, RelationshipParty>();
  if (wanted.length === 0) return found;
  const rows = await db
    .selectFrom("accounts as a")
    .leftJoin("users as u", "u.account_id", "a.id")
    .select([
      "a.id",
      "a.username",
      "a.domain",
      "a.locked",
      "a.hide_collections",
      "a.moved_to_account_id",
      "a.silenced_at",
      "a.suspended_at",
      "u.id as user_id",
      "u.confirmed_at",
      "u.approved",
    ])
    .where("a.id", "in", wanted)
    .execute();
  for (const row of rows) {
    if (row.suspended_at !== null) continue;
    if (row.user_id !== null && (row.confirmed_at === null || row.approved === false)) continue;
    const { suspended_at: _s, user_id: _u, confirmed_at: _c, approved: _a, ...party } = row;
    found.set(party.id, party);
  }
  return found;
}

/** Whether the account lives on another server: what it may do waits for that server's answer. */
export const isRemote = (account: Pick<RelationshipParty, "domain">) => account.domain !== null;
