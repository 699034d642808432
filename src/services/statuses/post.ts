// Posting a status (POST /api/v1/statuses).
import type { Db } from "../../db/index.ts";
import { unprocessable } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import { urls } from "../../domain/urls.ts";
import type { Runtime } from "../../runtime.ts";
import { userSettings } from "../accounts/preferences.ts";
import { federate } from "../federation/outbox.ts";
import { checkMedia } from "../media/attach.ts";
import { visibleStatus } from "../visibility/load.ts";
import type { QuotePolicy } from "../visibility/quote.ts";
import { checkDraft, chosenVisibility, type Draft, renderDraft } from "./compose.ts";
import { checkPoll, type NewPoll, newPollRecord } from "./polls.ts";
import { addQuote, newPolicyBits, quotableStatus } from "./quotes.ts";
import { insertStatus } from "./write.ts";

export interface NewStatus extends Draft {
  visibility?: string;
  sensitive?: boolean;
  inReplyToId?: string;
  idempotencyKey?: string;
  poll?: NewPoll;
  /** The scheduled status being published, whose media it may attach. */
  scheduledId?: string;
  quotedStatusId?: string;
  quotePolicy?: QuotePolicy;
}

export interface Author {
  userId: string;
  accountId: string;
  applicationId: string | null;
}

const IDEMPOTENCY_SECONDS = 3600;

/** The status a live claim of `key` answered with, if any. */
async function idempotent(db: Db, key: string): Promise<string | null> {
  const row = await db.selectFrom("kv").select(["value", "expires_at"]).where("key", "=", key).executeTakeFirst();
  if (!row || (row.expires_at && row.expires_at <= new Date())) return null;
  return row.value as string;
}

/**
 * Claims `key` for status `id`, first thing in the posting transaction; returns the status an earlier
 * live claim answered with instead. The key's row is unique: of two concurrent requests, the second
 * waits on the first one's row and then finds its status, so only one posts.
 */
async function claimKey(db: Db, key: string, id: string, now: Date): Promise<string | null> {
  const claim = { value: JSON.stringify(id), expires_at: new Date(now.getTime() + IDEMPOTENCY_SECONDS * 1000) };
  const claimed = await db
    .insertInto("kv")
    .values({ key, ...claim })
    .onConflict((oc) => oc.column("key").doUpdateSet(claim).where("kv.expires_at", "<=", now))
    .returning("key")
    .executeTakeFirst();
  return claimed ? null : idempotent(db, key);
}

/** Posts a status; returns its id. The same Idempotency-Key within an hour returns the first one. */
export async function postStatus(rt: Runtime, author: Author, input: NewStatus): Promise<string> {
  const idemKey = input.idempotencyKey ? `idempotency:${author.accountId}:${input.idempotencyKey}` : null;
  // A retry answers with the first status before its input is checked again, as Mastodon does.
  const earlier = idemKey ? await idempotent(rt.db, idemKey) : null;
  if (earlier) return earlier;
  const settings = await userSettings(rt, author.userId);
  let visibility = chosenVisibility(input.visibility, settings);
  checkDraft(rt, input);
  const poll = input.poll ? checkPoll(rt, input.poll) : null;
  if (poll && input.mediaIds.length > 0)
    throw unprocessable("Validation failed: A post cannot have both media and a poll");
  const media = await checkMedia(rt, { accountId: author.accountId, scheduledId: input.scheduledId }, input.mediaIds);
  const parent = input.inReplyToId ? await visibleStatus(rt, author.accountId, input.inReplyToId) : null;
  if (parent?.reblog_of_id) throw unprocessable("Validation failed: A boost cannot be replied to");
  const quoted = input.quotedStatusId ? await quotableStatus(rt, author.accountId, input.quotedStatusId) : null;

  const account = await rt.db
    .selectFrom("accounts")
    .select(["username", "silenced_at", "sensitized_at"])
    .where("id", "=", author.accountId)
    .executeTakeFirstOrThrow();
  // A silenced account's public posts stay off the public timelines.
  if (visibility === "public" && account.silenced_at) visibility = "unlisted";
  const rendered = await renderDraft(rt, input, settings.default_language ?? null);
  // Moderators may force a sensitized account's media behind a warning.
  const sensitive =
    input.spoilerText.trim() !== "" ||
    (media.length > 0 && account.sensitized_at !== null) ||
    (input.sensitive ?? settings.default_sensitive ?? false);

  const id = newId();
  const now = new Date();
  const u = urls(rt.config);
  return rt.db.transaction().execute(async (trx) => {
    if (idemKey) {
      const claimedBefore = await claimKey(trx, idemKey, id, now);
      if (claimedBefore) return claimedBefore;
    }
    await insertStatus(rt, trx, {
      id,
      uri: u.statusUri(account.username, id),
      url: u.statusUrl(account.username, id),
      accountId: author.accountId,
      local: true,
      visibility,
      text: input.text,
      content: rendered.content,
      spoilerText: input.spoilerText,
      sensitive,
      language: rendered.language,
      parent: parent ? { id: parent.id, account_id: parent.account_id, conversation_id: parent.conversation_id } : null,
      applicationId: author.applicationId,
      createdAt: now,
      editedAt: null,
      mentioned: rendered.mentions.map((m) => m.id),
      tags: rendered.tags,
      poll: poll ? newPollRecord(poll, now) : null,
      media,
      remoteMedia: [],
      quoteApprovalPolicy: newPolicyBits(input.quotePolicy, settings.default_quote_policy, visibility),
    });
    if (quoted) await addQuote(rt, trx, { statusId: id, accountId: author.accountId, quoted, now });
    await federate(rt, trx, author.accountId, { type: "Create", statusId: id }, [
      ...rendered.mentions.map((m) => m.id),
      ...(parent ? [parent.account_id] : []),
    ]);
    return id;
  });
}
