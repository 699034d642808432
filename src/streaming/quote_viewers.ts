// Who, among a stream's viewers, sees a status's quote parts their own way (see render.ts). The
// Quote entity's state and its quoted status depend on the viewer: a followers-only or direct
// quoted post shows only to those who may see it ("unauthorized" to the rest), and a block, a mute
// or a blocked domain changes the state; the quoted post's own quote (a ShallowQuote) likewise. Who
// may quote a status (`quote_approval.current_user`) depends on follows under a followers or
// following policy. Most statuses quote nothing and have a public policy: they stay shared.
import type { Runtime } from "../runtime.ts";
import { loadStatusRows, type StatusRow } from "../services/visibility/load.ts";
import { QUOTE_FLAGS } from "../services/visibility/quote.ts";

const RELATIVE = QUOTE_FLAGS.followers | QUOTE_FLAGS.following;

/** The quoted statuses of `ids` that their views show (accepted quotes), by quoting status. */
async function acceptedQuotes(rt: Runtime, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await rt.db
    .selectFrom("quotes")
    .select("quoted_status_id")
    .where("status_id", "in", ids)
    .where("state", "=", "accepted")
    .where("quoted_status_id", "is not", null)
    .execute();
  return rows.flatMap((r) => (r.quoted_status_id ? [r.quoted_status_id] : []));
}

export interface QuoteViewers {
  /** The statuses these quote (shown nested in them): the viewers' own flags on them matter too. */
  quotedIds: string[];
  /** The viewers whose rendering of the quote parts is their own. */
  special: Set<string>;
}

/** The quote parts of `rows` (a status, and the one it boosts), for `viewerIds`. */
export async function quoteViewers(rt: Runtime, rows: StatusRow[], viewerIds: string[]): Promise<QuoteViewers> {
  const quotedIds = await acceptedQuotes(
    rt,
    rows.map((r) => r.id),
  );
  // The quoted statuses' own quotes show as ShallowQuotes, whose state depends on the viewer too.
  const shallowIds = await acceptedQuotes(rt, quotedIds);
  const quoted = await loadStatusRows(rt.db, [...quotedIds, ...shallowIds]);
  if ([...quoted.values()].some((r) => r.visibility === "private" || r.visibility === "direct")) {
    return { quotedIds, special: new Set(viewerIds) };
  }
  const nested = quotedIds.flatMap((id) => quoted.get(id) ?? []);
  const found = await Promise.all([
    relatedToAuthors(rt, [...quoted.values()], viewerIds),
    followsUnderPolicies(rt, [...rows, ...nested], viewerIds),
  ]);
  return { quotedIds, special: new Set(found.flat()) };
}

/** Viewers who are, block, are blocked by, or mute a quoted author, or block a quoted author's domain. */
async function relatedToAuthors(rt: Runtime, quoted: StatusRow[], viewerIds: string[]): Promise<string[]> {
  if (quoted.length === 0) return [];
  const authors = [...new Set(quoted.map((r) => r.account_id))];
  const domains = [...new Set(quoted.flatMap((r) => (r.author_domain ? [r.author_domain] : [])))];
  const db = rt.db;
  const found = await Promise.all([
    db
      .selectFrom("blocks")
      .select("account_id as id")
      .where("account_id", "in", viewerIds)
      .where("target_account_id", "in", authors)
      .union(
        db
          .selectFrom("blocks")
          .select("target_account_id as id")
          .where("target_account_id", "in", viewerIds)
          .where("account_id", "in", authors),
      )
      .union(
        db
          .selectFrom("mutes")
          .select("account_id as id")
          .where("account_id", "in", viewerIds)
          .where("target_account_id", "in", authors),
      )
      .execute(),
    domains.length === 0
      ? []
      : db
          .selectFrom("account_domain_blocks")
          .select("account_id as id")
          .where("account_id", "in", viewerIds)
          .where("domain", "in", domains)
          .execute(),
  ]);
  const viewers = new Set(viewerIds);
  return [...authors.filter((a) => viewers.has(a)), ...found.flat().map((r) => r.id)];
}

/** Viewers who follow, or are followed by, the author of a status whose quote policy counts follows. */
async function followsUnderPolicies(rt: Runtime, rows: StatusRow[], viewerIds: string[]): Promise<string[]> {
  const authors = [
    ...new Set(
      rows
        .filter((r) => (r.quote_approval_policy | (r.quote_approval_policy >> 16)) & RELATIVE)
        .map((r) => r.account_id),
    ),
  ];
  if (authors.length === 0) return [];
  const db = rt.db;
  const found = await db
    .selectFrom("follows")
    .select("account_id as id")
    .where("account_id", "in", viewerIds)
    .where("target_account_id", "in", authors)
    .union(
      db
        .selectFrom("follows")
        .select("target_account_id as id")
        .where("target_account_id", "in", viewerIds)
        .where("account_id", "in", authors),
    )
    .execute();
  return found.map((r) => r.id);
}
