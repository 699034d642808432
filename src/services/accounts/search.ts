// Known accounts by the start of their username or of a word of their display name, or by
// `user@domain`: GET /api/v1/accounts/search and the accounts of GET /api/v2/search.
import { sql } from "kysely";
import type { Runtime } from "../../runtime.ts";
import { hiddenAccountIds } from "../relationships/hidden_accounts.ts";
import { isLocalDomain, LIVE_ACCOUNT } from "./accounts.ts";

export interface AccountSearch {
  q: string;
  limit: number;
  offset: number;
  /** Only accounts the viewer follows. */
  following: boolean;
}

const likePrefix = (text: string) => `${text.toLowerCase().replace(/[\\%_]/g, (m) => `\\${m}`)}%`;

/**
 * Account ids, best first: the exact `user@domain` match, then accounts the viewer follows, then
 * the most followed. Left out, as in Mastodon: suspended and moved accounts, sign-ups not yet live,
 * and accounts the viewer blocks, mutes or is blocked by.
 */
export async function searchAccounts(rt: Runtime, viewerId: string | null, s: AccountSearch): Promise<string[]> {
  const query = s.q.trim().replace(/^@/, "");
  if (query === "" || query.startsWith("#") || s.limit < 1) return [];
  const [name = "", domain = null] = query.split("@");
  const local = isLocalDomain(rt, domain);
  const exactKey = `${name.toLowerCase()}@${local ? "" : domain!.toLowerCase()}`;
  const username = sql<boolean>`lower(a.username) LIKE ${likePrefix(name)} ESCAPE '\\'`;
  let q = rt.db
    .selectFrom("accounts as a")
    .leftJoin("users as u", "u.account_id", "a.id")
    .leftJoin("account_stats as st", "st.account_id", "a.id")
    // Without a viewer (an anonymous search), no follow matches id 0.
    .leftJoin("follows as f", (j) =>
      j.onRef("f.target_account_id", "=", "a.id").on("f.account_id", "=", viewerId ?? "0"),
    )
    .select("a.id")
    .where("a.suspended_at", "is", null)
    .where("a.moved_to_account_id", "is", null)
    .where(LIVE_ACCOUNT)
    // A limited (silenced) account is found by its followers, or by its exact address.
    .where((eb) =>
      eb.or([eb("a.silenced_at", "is", null), eb("f.id", "is not", null), eb("a.acct_key", "=", exactKey)]),
    );
  if (viewerId !== null) q = q.where("a.id", "not in", hiddenAccountIds(rt.db, viewerId));
  if (domain !== null && local) {
    q = q.where("a.domain", "is", null).where(username);
  } else if (domain !== null) {
    q = q.where(username).where(sql<boolean>`lower(a.domain) LIKE ${likePrefix(domain)} ESCAPE '\\'`);
  } else {
    const word = likePrefix(name);
    q = q.where((eb) =>
      eb.or([
        username,
        sql<boolean>`lower(a.display_name) LIKE ${word} ESCAPE '\\'`,
        sql<boolean>`lower(a.display_name) LIKE ${`% ${word}`} ESCAPE '\\'`,
      ]),
    );
  }
  if (s.following) q = q.where("f.id", "is not", null);
  const rows = await q
    .orderBy(sql`CASE WHEN a.acct_key = ${exactKey} THEN 0 ELSE 1 END`)
    .orderBy(sql`CASE WHEN f.id IS NULL THEN 1 ELSE 0 END`)
    .orderBy(sql`COALESCE(st.followers_count, 0)`, "desc")
    .orderBy("a.id")
    .limit(s.limit)
    .offset(s.offset)
    .execute();
  return rows.map((r) => r.id);
}
