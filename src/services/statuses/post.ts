// Posting a status (POST /api/v1/statuses).
import { sql } from "kysely";
import type { Visibility } from "../../db/schema.ts";
import { unprocessable } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import { urls } from "../../domain/urls.ts";
import type { Runtime } from "../../runtime.ts";
import { userSettings } from "../accounts/preferences.ts";
import { visibleStatus } from "../visibility/load.ts";
import { addMentions, addTags, checkDraft, type Draft, renderDraft, VISIBILITIES } from "./compose.ts";
import { checkPoll, createPoll, type NewPoll } from "./polls.ts";
import { statusPosted } from "./side_effects.ts";

export interface NewStatus extends Draft {
  visibility?: string;
  sensitive?: boolean;
  inReplyToId?: string;
  idempotencyKey?: string;
  poll?: NewPoll;
}

export interface Author {
  userId: string;
  accountId: string;
  applicationId: string | null;
}

const IDEMPOTENCY_SECONDS = 3600;

async function idempotent(rt: Runtime, key: string): Promise<string | null> {
  const row = await rt.db.selectFrom("kv").select(["value", "expires_at"]).where("key", "=", key).executeTakeFirst();
  if (!row || (row.expires_at && row.expires_at <= new Date())) return null;
  return row.value as string;
}

/** Posts a status; returns its id. The same Idempotency-Key within an hour returns the first one. */
export async function postStatus(rt: Runtime, author: Author, input: NewStatus): Promise<string> {
  const idemKey = input.idempotencyKey ? `idempotency:${author.accountId}:${input.idempotencyKey}` : null;
  if (idemKey) {
    const earlier = await idempotent(rt, idemKey);
    if (earlier) return earlier;
  }
  if (input.visibility !== undefined && !VISIBILITIES.includes(input.visibility as Visibility)) {
    throw unprocessable("Validation failed: Visibility is not included in the list");
  }
  checkDraft(rt, input);
  const poll = input.poll ? checkPoll(rt, input.poll) : null;
  if (poll && input.mediaIds.length > 0)
    throw unprocessable("Validation failed: A post cannot have both media and a poll");
  const parent = input.inReplyToId ? await visibleStatus(rt, author.accountId, input.inReplyToId) : null;
  if (parent?.reblog_of_id) throw unprocessable("Validation failed: A boost cannot be replied to");

  const settings = await userSettings(rt, author.userId);
  const account = await rt.db
    .selectFrom("accounts")
    .select(["username", "silenced_at"])
    .where("id", "=", author.accountId)
    .executeTakeFirstOrThrow();
  let visibility: Visibility = (input.visibility as Visibility | undefined) ?? settings.default_privacy ?? "public";
  // A silenced account's public posts stay off the public timelines.
  if (visibility === "public" && account.silenced_at) visibility = "unlisted";
  const rendered = await renderDraft(rt, input, settings.default_language ?? null);
  const sensitive = input.spoilerText.trim() !== "" || (input.sensitive ?? settings.default_sensitive ?? false);

  const id = newId();
  const conversationId = parent ? (parent.conversation_id ?? parent.id) : id;
  const now = new Date();
  const u = urls(rt.config);
  await rt.db.transaction().execute(async (trx) => {
    await trx
      .insertInto("statuses")
      .values({
        id,
        uri: u.statusUri(account.username, id),
        url: u.statusUrl(account.username, id),
        account_id: author.accountId,
        local: true,
        visibility,
        text: input.text,
        content: rendered.content,
        spoiler_text: input.spoilerText,
        sensitive,
        language: rendered.language,
        in_reply_to_id: parent?.id ?? null,
        in_reply_to_account_id: parent?.account_id ?? null,
        reblog_of_id: null,
        conversation_id: conversationId,
        application_id: author.applicationId,
        created_at: now,
        updated_at: now,
        edited_at: null,
        deleted_at: null,
      })
      .execute();
    await trx.insertInto("status_stats").values({ status_id: id }).execute();
    await addMentions(
      trx,
      id,
      rendered.mentions.map((m) => m.id),
    );
    await addTags(trx, id, rendered.tags, now);
    if (poll) await createPoll(rt, trx, id, author.accountId, poll);
    await trx
      .updateTable("account_stats")
      .set({ statuses_count: sql`statuses_count + 1`, last_status_at: now })
      .where("account_id", "=", author.accountId)
      .execute();
    if (parent) {
      await trx
        .updateTable("status_stats")
        .set({ replies_count: sql`replies_count + 1` })
        .where("status_id", "=", parent.id)
        .execute();
    }
    if (idemKey) {
      await trx
        .insertInto("kv")
        .values({
          key: idemKey,
          value: JSON.stringify(id),
          expires_at: new Date(now.getTime() + IDEMPOTENCY_SECONDS * 1000),
        })
        .onConflict((oc) =>
          oc.column("key").doUpdateSet({
            value: JSON.stringify(id),
            expires_at: new Date(now.getTime() + IDEMPOTENCY_SECONDS * 1000),
          }),
        )
        .execute();
    }
    await statusPosted(rt, trx, {
      id,
      accountId: author.accountId,
      mentioned: rendered.mentions.map((m) => m.id),
      visibility,
      conversationId,
    });
  });
  return id;
}
