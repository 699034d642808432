// What the status entity says of quotes, for one viewer (Mastodon's REST::QuoteSerializer and
// `quote_approval`): the quote a status makes, in the state this viewer sees it, with the quoted
// status; who may quote it and how its policy applies to the viewer; and how many quoted it.
import type { QuoteState } from "../../db/schema.ts";
import type { Runtime } from "../../runtime.ts";
import { loadStatusRows, type StatusRow, viewerFor } from "../visibility/load.ts";
import { policyKeys, QUOTE_FLAGS, type QuoteFlag, type QuoteVerdict, quoteVerdict } from "../visibility/quote.ts";
import { ANONYMOUS, canSee } from "../visibility/rule.ts";

/** The states of the Quote entity: the stored ones, and what the viewer's relations make of an accepted one. */
export type ShownQuoteState = QuoteState | "unauthorized" | "blocked_account" | "blocked_domain" | "muted_account";

export interface QuoteView<S> {
  state: ShownQuoteState;
  /** The quoted status, when the viewer may be shown it. */
  quotedId: string | null;
  quoted: S | null;
  /** Within a quoted status: rendered as a ShallowQuote, by id. */
  shallow: boolean;
}

export interface QuotingView<S> {
  quote: QuoteView<S> | null;
  approval: { automatic: QuoteFlag[]; manual: QuoteFlag[]; current_user: QuoteVerdict };
  quotesCount: number;
}

/**
 * The quote parts of `rows` (boosts answer for what they boost) for `viewerId`. `nest` loads the
 * views of the quoted statuses the viewer may be shown, or is null where quotes nest no further
 * (Mastodon's ShallowQuote).
 */
export async function loadQuoting<S>(
  rt: Runtime,
  viewerId: string | null,
  rows: readonly StatusRow[],
  nest: ((ids: string[]) => Promise<Map<string, S>>) | null,
): Promise<Map<string, QuotingView<S>>> {
  const ids = rows.map((r) => r.id);
  if (ids.length === 0) return new Map();
  const [quotes, counts] = await Promise.all([
    rt.db.selectFrom("quotes").selectAll().where("status_id", "in", ids).execute(),
    rt.db
      .selectFrom("quotes")
      .select((eb) => ["quoted_status_id", eb.fn.countAll<number>().as("n")])
      .where("quoted_status_id", "in", ids)
      .where("state", "=", "accepted")
      .groupBy("quoted_status_id")
      .execute(),
  ]);
  const quotedIds = quotes.map((q) => q.quoted_status_id).filter((id): id is string => id !== null);
  const quotedRows = await loadStatusRows(rt.db, quotedIds);
  const others = (ids: Iterable<string>) => [...new Set(ids)].filter((a) => a !== viewerId);
  // Follows matter to the verdict only under a followers or following policy: most posts have neither.
  const RELATIVE = QUOTE_FLAGS.followers | QUOTE_FLAGS.following;
  const relative = others(
    rows.filter((r) => (r.quote_approval_policy | (r.quote_approval_policy >> 16)) & RELATIVE).map((r) => r.account_id),
  );
  const quotedAuthors = others([...quotedRows.values()].map((r) => r.account_id));
  const [viewer, follows, blocking, muting] = await Promise.all([
    quotedRows.size > 0 ? viewerFor(rt, viewerId, [...quotedRows.values()]) : ANONYMOUS,
    viewerId && relative.length > 0
      ? rt.db
          .selectFrom("follows")
          .select(["account_id", "target_account_id"])
          .where((eb) =>
            eb.or([
              eb.and([eb("account_id", "=", viewerId), eb("target_account_id", "in", relative)]),
              eb.and([eb("target_account_id", "=", viewerId), eb("account_id", "in", relative)]),
            ]),
          )
          .execute()
      : [],
    viewerId && quotedAuthors.length > 0
      ? rt.db
          .selectFrom("blocks")
          .select("target_account_id as id")
          .where("account_id", "=", viewerId)
          .where("target_account_id", "in", quotedAuthors)
          .execute()
      : [],
    viewerId && quotedAuthors.length > 0
      ? rt.db
          .selectFrom("mutes")
          .select("target_account_id as id")
          .where("account_id", "=", viewerId)
          .where("target_account_id", "in", quotedAuthors)
          .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", new Date())]))
          .execute()
      : [],
  ]);
  const followPairs = new Set(follows.map((f) => `${f.account_id}>${f.target_account_id}`));
  const blocked = new Set(blocking.map((b) => b.id));
  const muted = new Set(muting.map((m) => m.id));

  const shown = new Map<string, { state: ShownQuoteState; quotedId: string | null }>();
  for (const q of quotes) {
    // A quote made the older way shows only once accepted (a self-quote), as Mastodon's Quote#acceptable?.
    if (q.legacy && q.state !== "accepted") continue;
    const quoted = q.quoted_status_id ? quotedRows.get(q.quoted_status_id) : undefined;
    let state: ShownQuoteState = q.state;
    if (q.state === "accepted") {
      if (!quoted || quoted.deleted_at || quoted.reblog_of_id) state = "deleted";
      else if (blocked.has(quoted.account_id)) state = "blocked_account";
      else if (quoted.author_domain !== null && viewer.blockedDomains.has(quoted.author_domain))
        state = "blocked_domain";
      else if (!canSee(quoted, viewer)) state = "unauthorized";
      else if (muted.has(quoted.account_id)) state = "muted_account";
    }
    // The quoted status is shown when accepted and muted; a blocked one stays out, as the rule says.
    const visible = state === "accepted" || state === "muted_account";
    shown.set(q.status_id, { state, quotedId: visible ? q.quoted_status_id : null });
  }
  const toNest = [...new Set([...shown.values()].flatMap((s) => (s.quotedId ? [s.quotedId] : [])))];
  const nested = nest && toNest.length > 0 ? await nest(toNest) : new Map<string, S>();
  const countOf = new Map(counts.map((c) => [c.quoted_status_id, Number(c.n)]));

  const out = new Map<string, QuotingView<S>>();
  for (const row of rows) {
    const s = shown.get(row.id);
    const quote: QuoteView<S> | null = s
      ? {
          state: s.state,
          quotedId: s.quotedId,
          quoted: s.quotedId ? (nested.get(s.quotedId) ?? null) : null,
          shallow: nest === null,
        }
      : null;
    const verdict = quoteVerdict(row, {
      id: viewerId,
      followsAuthor: followPairs.has(`${viewerId}>${row.account_id}`),
      followedByAuthor: followPairs.has(`${row.account_id}>${viewerId}`),
    });
    out.set(row.id, {
      quote,
      approval: {
        automatic: policyKeys(row.quote_approval_policy, "automatic"),
        manual: policyKeys(row.quote_approval_policy, "manual"),
        current_user: verdict,
      },
      quotesCount: countOf.get(row.id) ?? 0,
    });
  }
  return out;
}
