// Quote posts (Mastodon 4.5, FEP-044f): quoting a status when posting or editing, who may quote it
// (POST /api/v1/statuses `quote_approval_policy`, PUT /api/v1/statuses/:id/interaction_policy),
// the quotes of a status (GET /api/v1/statuses/:id/quotes) and taking one's authorization back
// (POST /api/v1/statuses/:id/quotes/:quoting_status_id/revoke). A quote of a local status is
// decided at once; a quote of a remote one waits, `pending`, for the quoted server's answer to the
// QuoteRequest sent for it (src/federation/quotes.ts).
import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import type { Db } from "../../db/index.ts";
import { type Page, type PageResult, paginate } from "../../db/paginate.ts";
import type { QuoteState, Visibility } from "../../db/schema.ts";
import { ApiError, forbidden, notFound, unprocessable } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import { publishEvent } from "../../streaming/events.ts";
import { userSettings } from "../accounts/preferences.ts";
import { federate } from "../federation/outbox.ts";
import { notify } from "../notifications/create.ts";
import { type StatusRow, visibleStatus } from "../visibility/load.ts";
import {
  mayQuote,
  policyBits,
  QUOTE_POLICIES,
  type QuotePolicy,
  type Quoter,
  quoteVerdict,
} from "../visibility/quote.ts";
import { viewerValue, visibleStatusId } from "../visibility/sql.ts";

/** Mastodon's answer to a quote of a status that is not there or may not be quoted (one answer for both). */
export const quotedNotFound = () => new ApiError(404, "The post you are trying to quote does not appear to exist.");

/** A policy asked for by name, or 422. */
export function quotePolicyOf(asked: string): QuotePolicy {
  if (!(QUOTE_POLICIES as readonly string[]).includes(asked))
    throw unprocessable("Validation failed: Quote approval policy is not included in the list");
  return asked as QuotePolicy;
}

/** The quoter's follow relations with the quoted author, both ways. */
export async function quoterOf(db: Db, quoterId: string, authorId: string): Promise<Quoter> {
  const rows = await db
    .selectFrom("follows")
    .select(["account_id"])
    .where((eb) =>
      eb.or([
        eb.and([eb("account_id", "=", quoterId), eb("target_account_id", "=", authorId)]),
        eb.and([eb("account_id", "=", authorId), eb("target_account_id", "=", quoterId)]),
      ]),
    )
    .execute();
  return {
    id: quoterId,
    followsAuthor: rows.some((r) => r.account_id === quoterId),
    followedByAuthor: rows.some((r) => r.account_id === authorId),
  };
}

export interface Quotable {
  row: StatusRow;
  verdict: "automatic" | "manual";
}

/**
 * The status `quoterId` asks to quote (the boosted one, for a boost), as Mastodon's StatusPolicy#quote?
 * decides: one it may see, of an author it does not block and who does not block it, whose policy
 * lets it quote. Else Mastodon's 404.
 */
export async function quotableStatus(rt: Runtime, quoterId: string, quotedId: string): Promise<Quotable> {
  const seen = async (id: string) => {
    try {
      return await visibleStatus(rt, quoterId, id);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) throw quotedNotFound();
      throw error;
    }
  };
  let row = await seen(quotedId);
  if (row.reblog_of_id) row = await seen(row.reblog_of_id);
  const quoter = await quoterOf(rt.db, quoterId, row.account_id);
  if (!mayQuote(row, quoter)) throw quotedNotFound();
  return { row, verdict: quoteVerdict(row, quoter) as Quotable["verdict"] };
}

/** The stored policy of a new local status: the one asked for, else the author's default. */
export function newPolicyBits(asked: QuotePolicy | undefined, fallback: QuotePolicy | undefined, v: Visibility) {
  return policyBits(asked ?? fallback ?? "public", v);
}

/**
 * Writes the quote of a status being posted or edited, in its transaction: accepted at once when a
 * local author's policy lets the quoter, pending (with a QuoteRequest on its way) for a remote one.
 * The quoted author gets a silent mention, so that the quote reaches them, and a `quote` notification
 * when accepted.
 */
export async function addQuote(
  rt: Runtime,
  trx: Db,
  q: { statusId: string; accountId: string; quoted: Quotable; now: Date },
): Promise<void> {
  const { row, verdict } = q.quoted;
  const quotedAuthor = await trx
    .selectFrom("accounts")
    .select(["domain"])
    .where("id", "=", row.account_id)
    .executeTakeFirstOrThrow();
  const remote = quotedAuthor.domain !== null;
  const state: QuoteState = !remote && verdict === "automatic" ? "accepted" : "pending";
  const quoter = await trx.selectFrom("accounts").select("uri").where("id", "=", q.accountId).executeTakeFirstOrThrow();
  const quoteId = newId();
  await trx
    .insertInto("quotes")
    .values({
      id: quoteId,
      status_id: q.statusId,
      account_id: q.accountId,
      quoted_status_id: row.id,
      quoted_account_id: row.account_id,
      state,
      activity_uri: remote ? `${quoter.uri}/quote_requests/${randomUUID()}` : null,
      approval_uri: null,
      created_at: q.now,
      updated_at: q.now,
    })
    .execute();
  if (row.account_id !== q.accountId) {
    await trx
      .insertInto("status_mentions")
      .values({ id: newId(), status_id: q.statusId, account_id: row.account_id, silent: true })
      .onConflict((oc) => oc.columns(["status_id", "account_id"]).doNothing())
      .execute();
  }
  if (state === "accepted") {
    await notify(rt, trx, {
      recipientId: row.account_id,
      fromAccountId: q.accountId,
      type: "quote",
      statusId: q.statusId,
    });
  }
  if (remote) await federate(rt, trx, q.accountId, { type: "QuoteRequest", quoteId }, [row.account_id]);
}

/** Takes the quote off an edited status (Mastodon destroys the Quote). */
export async function removeQuote(trx: Db, statusId: string): Promise<boolean> {
  const removed = await trx.deleteFrom("quotes").where("status_id", "=", statusId).executeTakeFirst();
  return Number(removed.numDeletedRows) > 0;
}

/** The status an edit quotes now, or null; undefined when it keeps its quote. */
export async function quoteOfEdit(
  rt: Runtime,
  accountId: string,
  statusId: string,
  asked: string | null | undefined,
): Promise<Quotable | null | undefined> {
  if (asked === undefined) return undefined;
  const current = await rt.db
    .selectFrom("quotes")
    .select("quoted_status_id")
    .where("status_id", "=", statusId)
    .executeTakeFirst();
  if (asked === null || asked === "") return current ? null : undefined;
  if (current?.quoted_status_id === asked) return undefined;
  return quotableStatus(rt, accountId, asked);
}

/**
 * PUT /api/v1/statuses/:id/interaction_policy: who may quote one's own status from now on (without
 * a policy, the author's default). Quotes made before stay.
 */
export async function setQuotePolicy(
  rt: Runtime,
  user: { id: string; accountId: string },
  statusId: string,
  asked: QuotePolicy | undefined,
) {
  const accountId = user.accountId;
  const policy = asked ?? (await userSettings(rt, user.id)).default_quote_policy ?? "public";
  const row = await visibleStatus(rt, accountId, statusId);
  // Someone else's status the caller may see: Mastodon's StatusPolicy#update? says no.
  if (row.account_id !== accountId) throw forbidden();
  if (row.reblog_of_id !== null) throw notFound();
  const bits = policyBits(policy, row.visibility);
  if (bits === row.quote_approval_policy) return;
  await rt.db.transaction().execute(async (trx) => {
    await trx
      .updateTable("statuses")
      .set({ quote_approval_policy: bits, updated_at: new Date() })
      .where("id", "=", statusId)
      .execute();
    await federate(rt, trx, accountId, { type: "Update", statusId });
  });
  await publishEvent(rt, "statuses.changed", { ids: [statusId] });
}

/**
 * GET /api/v1/statuses/:id/quotes: the accepted quotes of one's own status that the viewer may see,
 * newest first, paged by the quote's id. Someone else's status: 403, as Mastodon's list_quotes?.
 */
export async function quotesOf(
  rt: Runtime,
  viewerId: string,
  statusId: string,
  page: Page,
): Promise<PageResult<string>> {
  const row = await visibleStatus(rt, viewerId, statusId);
  if (row.account_id !== viewerId) throw forbidden();
  const result = await paginate(
    rt.db
      .selectFrom("quotes as q")
      .select(["q.id", "q.status_id"])
      .where("q.quoted_status_id", "=", statusId)
      .where("q.state", "=", "accepted")
      .where(visibleStatusId(viewerValue(viewerId), sql`q.status_id`)),
    "q.id",
    page,
  );
  return { ...result, items: result.items.map((r) => r.status_id) };
}

/**
 * POST /api/v1/statuses/:id/quotes/:quoting_status_id/revoke: the quoted author takes back an
 * authorization (Mastodon's Quote#reject!: accepted becomes revoked, pending becomes rejected). A
 * remote quoting status's server hears it as a Delete of the stamp. Returns the quoting status.
 */
export async function revokeQuote(rt: Runtime, accountId: string, statusId: string, quotingId: string) {
  await visibleStatus(rt, accountId, statusId);
  const quote = await rt.db
    .selectFrom("quotes")
    .selectAll()
    .where("quoted_status_id", "=", statusId)
    .where("status_id", "=", quotingId)
    .executeTakeFirst();
  if (!quote) throw notFound();
  if (quote.quoted_account_id !== accountId) throw forbidden();
  await changeQuoteState(rt, quote.id, rejectedState(quote.state), async (trx) => {
    if (quote.state === "accepted")
      await federate(rt, trx, accountId, { type: "RevokeQuote", quoteId: quote.id }, [quote.account_id]);
  });
  return quote.status_id;
}

/** What Mastodon's Quote#reject! makes of a state. */
export const rejectedState = (state: QuoteState): QuoteState =>
  state === "accepted" ? "revoked" : state === "revoked" ? "revoked" : "rejected";

/** Moves a quote to `state` (and runs `also` in the same transaction); the quoting status shows it. */
export async function changeQuoteState(
  rt: Runtime,
  quoteId: string,
  state: QuoteState,
  also?: (trx: Db) => Promise<void>,
  values: { approval_uri?: string | null } = {},
): Promise<void> {
  const statusId = await rt.db.transaction().execute(async (trx) => {
    const changed = await trx
      .updateTable("quotes")
      .set({ state, updated_at: new Date(), ...values })
      .where("id", "=", quoteId)
      .where("state", "!=", state)
      .returning("status_id")
      .executeTakeFirst();
    if (changed) await also?.(trx);
    return changed?.status_id ?? null;
  });
  if (statusId) await publishEvent(rt, "statuses.changed", { ids: [statusId] });
}
