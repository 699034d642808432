// Quotes of a status (Mastodon 4.5): who may quote it, the quotes its author sees, and revoking one.
import { z } from "zod";
import { WORD_MAX } from "../../domain/lengths.ts";
import { params, router, sendJson } from "../../http/hono.ts";
import { parse, pathId, zText } from "../../http/validate.ts";
import { statusesJson, statusJson } from "../../serializers/status.ts";
import { quotePolicyOf, quotesOf, revokeQuote, setQuotePolicy } from "../../services/statuses/quotes.ts";
import { loadStatusView, loadStatusViews } from "../../services/statuses/views.ts";
import { currentUser, requireUser } from "../auth.ts";
import { pageParams, setLinkHeader } from "../pagination.ts";

export const statusQuotes = router();

statusQuotes.put("/api/v1/statuses/:id/interaction_policy", requireUser("write:statuses"), async (c) => {
  const p = parse(z.object({ quote_approval_policy: zText(WORD_MAX) }), await params(c));
  const user = currentUser(c);
  const id = pathId(c.req.param("id"));
  const asked = p.quote_approval_policy ? quotePolicyOf(p.quote_approval_policy) : undefined;
  await setQuotePolicy(c.get("rt"), user, id, asked);
  return sendJson(c, statusJson(c.get("rt"), await loadStatusView(c.get("rt"), user.accountId, id)));
});

statusQuotes.get("/api/v1/statuses/:id/quotes", requireUser("read:statuses"), async (c) => {
  const viewer = currentUser(c).accountId;
  const result = await quotesOf(c.get("rt"), viewer, pathId(c.req.param("id")), pageParams(await params(c)));
  setLinkHeader(c, c.get("rt").config.origin, result);
  return sendJson(c, statusesJson(c.get("rt"), await loadStatusViews(c.get("rt"), viewer, result.items)));
});

statusQuotes.post("/api/v1/statuses/:id/quotes/:quoting_status_id/revoke", requireUser("write:statuses"), async (c) => {
  const user = currentUser(c);
  const quoting = await revokeQuote(
    c.get("rt"),
    user.accountId,
    pathId(c.req.param("id")),
    pathId(c.req.param("quoting_status_id")),
  );
  return sendJson(c, statusJson(c.get("rt"), await loadStatusView(c.get("rt"), user.accountId, quoting)));
});
