// Follow suggestions (GET /api/v2/suggestions): the accounts staff feature, then friends of friends
// (accounts followed by those the viewer follows, the most shared first), then the most followed.
// Never the viewer, accounts they follow or asked to follow, block, mute or are blocked by, nor
// suspended, moved or unlisted ones, nor a suggestion they removed (it stays removed). Besides the
// staff's picks, only accounts that chose to be discoverable are suggested.
import { sql } from "kysely";
import { newId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import { hiddenAccountIds } from "../relationships/hidden_accounts.ts";
import { LIVE_ACCOUNT, requireAccountExists } from "./accounts.ts";

export type SuggestionSource = "featured" | "friends_of_friends" | "most_followed";

export interface Suggestion {
  accountId: string;
  sources: SuggestionSource[];
}

function candidates(rt: Runtime, viewerId: string) {
  return rt.db
    .selectFrom("accounts as a")
    .leftJoin("users as u", "u.account_id", "a.id")
    .leftJoin("account_stats as st", "st.account_id", "a.id")
    .where("a.id", "!=", viewerId)
    .where("a.suspended_at", "is", null)
    .where("a.moved_to_account_id", "is", null)
    .where(LIVE_ACCOUNT)
    .where("a.id", "not in", hiddenAccountIds(rt.db, viewerId))
    .where("a.id", "not in", (eb) =>
      eb.selectFrom("follows").select("target_account_id").where("account_id", "=", viewerId),
    )
    .where("a.id", "not in", (eb) =>
      eb.selectFrom("follow_requests").select("target_account_id").where("account_id", "=", viewerId),
    )
    .where("a.id", "not in", (eb) =>
      eb.selectFrom("suggestion_dismissals").select("target_account_id").where("account_id", "=", viewerId),
    );
}

export async function suggestions(rt: Runtime, viewerId: string, limit: number): Promise<Suggestion[]> {
  const [featured, friends, popular] = await Promise.all([
    candidates(rt, viewerId)
      .innerJoin("featured_accounts as fa", "fa.account_id", "a.id")
      .select("a.id")
      .orderBy("fa.created_at")
      .limit(limit)
      .execute(),
    candidates(rt, viewerId)
      .innerJoin("follows as ff", "ff.target_account_id", "a.id")
      .innerJoin("follows as mine", "mine.target_account_id", "ff.account_id")
      .select("a.id")
      .where("mine.account_id", "=", viewerId)
      .where("a.discoverable", "=", true)
      .groupBy("a.id")
      .orderBy(sql`count(*)`, "desc")
      .orderBy("a.id")
      .limit(limit)
      .execute(),
    candidates(rt, viewerId)
      .select("a.id")
      .where("a.discoverable", "=", true)
      .where(sql<boolean>`coalesce(st.followers_count, 0) > 0`)
      .orderBy(sql`coalesce(st.followers_count, 0)`, "desc")
      .orderBy("a.id")
      .limit(limit)
      .execute(),
  ]);
  const found = new Map<string, Suggestion>();
  for (const [source, rows] of [
    ["featured", featured],
    ["friends_of_friends", friends],
    ["most_followed", popular],
  ] as const) {
    for (const { id } of rows) {
      const s = found.get(id) ?? { accountId: id, sources: [] };
      s.sources.push(source);
      found.set(id, s);
    }
  }
  return [...found.values()].slice(0, limit);
}

/** DELETE /api/v1/suggestions/:account_id: that account is not suggested again. */
export async function dismissSuggestion(rt: Runtime, viewerId: string, accountId: string): Promise<void> {
  await requireAccountExists(rt, accountId);
  await rt.db
    .insertInto("suggestion_dismissals")
    .values({ id: newId(), account_id: viewerId, target_account_id: accountId, created_at: new Date() })
    .onConflict((oc) => oc.columns(["account_id", "target_account_id"]).doNothing())
    .execute();
}

/** Staff's picks (`rookery suggestions feature|unfeature`): suggested to everyone first. */
export async function setFeatured(rt: Runtime, accountId: string, featured: boolean): Promise<void> {
  if (!featured) {
    await rt.db.deleteFrom("featured_accounts").where("account_id", "=", accountId).execute();
    return;
  }
  await rt.db
    .insertInto("featured_accounts")
    .values({ account_id: accountId, created_at: new Date() })
    .onConflict((oc) => oc.column("account_id").doNothing())
    .execute();
}

export async function featuredAccounts(rt: Runtime): Promise<{ id: string; acct_key: string }[]> {
  return rt.db
    .selectFrom("featured_accounts as f")
    .innerJoin("accounts as a", "a.id", "f.account_id")
    .select(["a.id", "a.acct_key"])
    .orderBy("f.created_at")
    .execute();
}
