// GET /api/v2/search: accounts, hashtags and statuses for one query, each searched when the query
// suits it, as Mastodon decides: no accounts for "#tag", no hashtags for "user@domain", and
// statuses only for a signed-in searcher and not for a lone "#tag" or "@user". A URL with
// `resolve` answers what it names, asking its server for it when it is not known here yet; so is a
// `user@domain` of another server with `resolve`.
import { ApiError } from "../../domain/errors.ts";
import type { Runtime } from "../../runtime.ts";
import { isLocalDomain } from "../accounts/accounts.ts";
import { searchAccounts } from "../accounts/search.ts";
import type { Tag } from "../statuses/tags.ts";
import { viewerValue, visibleTo } from "../visibility/sql.ts";
import { searchTags } from "./hashtags.ts";
import { searchStatuses } from "./statuses.ts";

/** `user@domain` or `@user@domain`. */
const REMOTE_HANDLE = /^@?([A-Za-z0-9_.-]+)@([A-Za-z0-9.-]+(?::\d{1,5})?)$/;

export type SearchType = "accounts" | "hashtags" | "statuses";

export interface Search {
  q: string;
  type?: string;
  limit: number;
  offset: number;
  minId?: string;
  maxId?: string;
  accountId?: string;
  following: boolean;
  excludeUnreviewed: boolean;
  resolve: boolean;
}

export interface SearchResults {
  accounts: string[];
  statuses: string[];
  hashtags: Tag[];
}

async function knownByUrl(rt: Runtime, viewerId: string | null, url: string): Promise<SearchResults> {
  const accounts = await rt.db
    .selectFrom("accounts")
    .select("id")
    .where((eb) => eb.or([eb("uri", "=", url), eb("url", "=", url)]))
    .where("suspended_at", "is", null)
    .execute();
  const statuses = await rt.db
    .selectFrom("statuses as s")
    .select("s.id")
    .where((eb) => eb.or([eb("s.uri", "=", url), eb("s.url", "=", url)]))
    .where("s.reblog_of_id", "is", null)
    .where(visibleTo(viewerValue(viewerId), "s"))
    .execute();
  return { accounts: accounts.map((a) => a.id), statuses: statuses.map((s) => s.id), hashtags: [] };
}

export async function search(rt: Runtime, viewerId: string | null, s: Search): Promise<SearchResults> {
  if (viewerId === null && s.resolve)
    throw new ApiError(401, "Search queries that resolve remote resources are not supported without authentication");
  if (viewerId === null && s.offset > 0)
    throw new ApiError(401, "Search queries pagination is not supported without authentication");
  const q = s.q.trim();
  if (s.resolve && /^https?:\/\/\S+$/i.test(q)) {
    const known = await knownByUrl(rt, viewerId, q);
    if (known.accounts.length > 0 || known.statuses.length > 0) return known;
    return (await rt.remote.url(rt, q)) ? knownByUrl(rt, viewerId, q) : known;
  }
  const handle = REMOTE_HANDLE.exec(q);
  if (s.resolve && handle && !isLocalDomain(rt, handle[2])) await rt.remote.account(rt, handle[1], handle[2]);
  const wanted = (type: SearchType) => s.type === undefined || s.type === "" || s.type === type;
  const lone = !q.includes(" ");
  const none = Promise.resolve([]);
  const [accounts, hashtags, statuses] = await Promise.all([
    wanted("accounts") && !q.startsWith("#") && !(q.includes("@") && !lone)
      ? searchAccounts(rt, viewerId, { q, limit: s.limit, offset: s.offset, following: s.following })
      : none,
    wanted("hashtags") && !q.includes("@")
      ? searchTags(rt, { q, limit: s.limit, offset: s.offset, excludeUnreviewed: s.excludeUnreviewed })
      : none,
    wanted("statuses") && viewerId !== null && !((q.startsWith("#") || q.includes("@")) && lone)
      ? searchStatuses(rt, viewerId, {
          q,
          limit: s.limit,
          offset: s.offset,
          minId: s.minId,
          maxId: s.maxId,
          accountId: s.accountId,
        })
      : none,
  ]);
  return { accounts, hashtags, statuses };
}
