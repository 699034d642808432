// Who may quote a status (Mastodon 4.5's quote approval policy), decided without I/O. A policy is
// stored as Mastodon stores it: the approvals that are automatic in the high 16 bits, those that
// wait for the author in the low 16. Local statuses only ever have automatic approvals; remote ones
// carry what their `interactionPolicy.canQuote` said.
import type { Visibility } from "../../db/schema.ts";

export const QUOTE_FLAGS = { unsupported_policy: 1, public: 2, followers: 4, following: 8 } as const;
export type QuoteFlag = keyof typeof QUOTE_FLAGS;

/** The policies an author chooses among (`quote_approval_policy`, `source.quote_policy`). */
export const QUOTE_POLICIES = ["public", "followers", "nobody"] as const;
export type QuotePolicy = (typeof QUOTE_POLICIES)[number];

export type QuoteVerdict = "automatic" | "manual" | "denied" | "unknown";

/**
 * The stored bits of a local status's policy. Private and direct statuses cannot be quoted by
 * anyone but their author, whatever was asked, as Mastodon downgrades them.
 */
export function policyBits(policy: QuotePolicy, visibility: Visibility): number {
  if (visibility === "private" || visibility === "direct" || policy === "nobody") return 0;
  return QUOTE_FLAGS[policy] << 16;
}

/** The policy a local status's bits came from. */
export function policyName(bits: number): QuotePolicy {
  const automatic = bits >> 16;
  if (automatic & QUOTE_FLAGS.public) return "public";
  if (automatic & QUOTE_FLAGS.followers) return "followers";
  return "nobody";
}

/** The approvals of one kind, as the QuoteApproval entity lists them. */
export function policyKeys(bits: number, kind: "automatic" | "manual"): QuoteFlag[] {
  const half = kind === "automatic" ? bits >> 16 : bits & 0xffff;
  return (Object.keys(QUOTE_FLAGS) as QuoteFlag[]).filter((k) => half & QUOTE_FLAGS[k]);
}

export interface QuotedStatus {
  account_id: string;
  visibility: Visibility;
  reblog_of_id: string | null;
  quote_approval_policy: number;
}

export interface Quoter {
  /** Null for anonymous readers. */
  id: string | null;
  /** Whether the quoter follows the quoted author. */
  followsAuthor: boolean;
  /** Whether the quoted author follows the quoter. */
  followedByAuthor: boolean;
}

/** How the policy of `status` applies to `quoter`, as Mastodon's quote_policy_for_account says. */
export function quoteVerdict(status: QuotedStatus, quoter: Quoter): QuoteVerdict {
  if (quoter.id === null || status.visibility === "direct" || status.reblog_of_id !== null) return "denied";
  if (status.account_id === quoter.id) return "automatic";
  const applies = (half: number) =>
    (half & QUOTE_FLAGS.public) !== 0 ||
    ((half & QUOTE_FLAGS.followers) !== 0 && quoter.followsAuthor) ||
    ((half & QUOTE_FLAGS.following) !== 0 && quoter.followedByAuthor);
  const automatic = status.quote_approval_policy >> 16;
  const manual = status.quote_approval_policy & 0xffff;
  if (applies(automatic)) return "automatic";
  if (applies(manual)) return "manual";
  if ((automatic | manual) & QUOTE_FLAGS.unsupported_policy) return "unknown";
  return "denied";
}

/**
 * Whether `quoter` may quote a status it can see (canSee, rule.ts) and whose author it does not
 * block nor is blocked by (Mastodon's StatusPolicy#quote?): its policy lets it, at once or after
 * the author's review, and it is not a private or direct status of someone else.
 */
export function mayQuote(status: QuotedStatus & { visibility: Visibility }, quoter: Quoter): boolean {
  if (quoter.id !== status.account_id && (status.visibility === "private" || status.visibility === "direct"))
    return false;
  const verdict = quoteVerdict(status, quoter);
  return verdict === "automatic" || verdict === "manual";
}
