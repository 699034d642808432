import { z } from "zod";
import { type Ctx, params, router } from "../../http/hono.ts";
import { parse, pathId, zInt } from "../../http/validate.ts";
import { dismissSuggestion, type SuggestionSource, suggestions } from "../../services/accounts/suggestions.ts";
import { accountEntities } from "../account_pages.ts";
import { currentUser, requireUser } from "../auth.ts";

export const suggestionsApi = router();

/** The deprecated `source` of the v2 entity, from the first of its `sources`. */
const LEGACY_SOURCE: Record<SuggestionSource, string> = {
  featured: "staff",
  most_followed: "global",
  friends_of_friends: "past_interactions",
};

async function suggested(c: Ctx) {
  const p = parse(z.object({ limit: zInt() }), await params(c));
  // Mastodon's limit_param: 40 by default, at most twice that.
  const limit = Math.min(Math.abs(p.limit ?? 40), 80);
  const found = await suggestions(c.get("rt"), currentUser(c).accountId, limit);
  const accounts = await accountEntities(
    c.get("rt"),
    found.map((s) => s.accountId),
  );
  const byId = new Map(accounts.map((a) => [a.id, a]));
  return found.filter((s) => byId.has(s.accountId)).map((s) => ({ ...s, account: byId.get(s.accountId)! }));
}

suggestionsApi.get("/api/v2/suggestions", requireUser("read"), async (c) => {
  const found = await suggested(c);
  return c.json(found.map((s) => ({ source: LEGACY_SOURCE[s.sources[0]], sources: s.sources, account: s.account })));
});

suggestionsApi.get("/api/v1/suggestions", requireUser("read"), async (c) => {
  return c.json((await suggested(c)).map((s) => s.account));
});

suggestionsApi.delete("/api/v1/suggestions/:account_id", requireUser("read"), async (c) => {
  await dismissSuggestion(c.get("rt"), currentUser(c).accountId, pathId(c.req.param("account_id")));
  return c.json({});
});
