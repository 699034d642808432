// Polls: made with a status, voted in until they end, and announced to everyone involved when they do.

import type { Selectable } from "kysely";
import { sql } from "kysely";
import { lockRow } from "../../db/concurrency.ts";
import type { Db } from "../../db/index.ts";
import type { PollsTable } from "../../db/schema.ts";
import { notFound, unprocessable } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import { countGraphemes } from "../../domain/text/index.ts";
import type { Runtime } from "../../runtime.ts";
import { publishEvent } from "../../streaming/events.ts";
import { federate } from "../federation/outbox.ts";
import { notify } from "../notifications/create.ts";
import { visibleStatus } from "../visibility/load.ts";

declare module "../../jobs/queue.ts" {
  interface JobPayloads {
    /** At a poll's end: `poll` notifications for its author and its voters. */
    "polls.expire": { pollId: string };
  }
}

export type Poll = Selectable<PollsTable>;

export interface NewPoll {
  options: string[];
  expiresIn: number;
  multiple: boolean;
  hideTotals: boolean;
}

/** Mastodon's poll rules, with the limits from configuration. */
export function checkPoll(rt: Runtime, p: NewPoll): NewPoll {
  const l = rt.config.limits;
  const options = p.options.map((o) => o.trim());
  const fail = (what: string) => unprocessable(`Validation failed: Poll ${what}`);
  if (options.length < 2) throw fail("options must have more than one item");
  if (options.length > l.pollOptions) throw fail(`options can't contain more than ${l.pollOptions} items`);
  if (options.some((o) => o === "")) throw fail("options can't be blank");
  if (options.some((o) => countGraphemes(o) > l.pollOptionChars)) {
    throw fail(`options cannot be longer than ${l.pollOptionChars} characters each`);
  }
  if (new Set(options).size !== options.length) throw fail("options must not contain duplicate items");
  if (!Number.isInteger(p.expiresIn) || p.expiresIn < l.pollMinExpiration) throw fail("expiration is too soon");
  if (p.expiresIn > l.pollMaxExpiration) throw fail("expiration is too far into the future");
  return { ...p, options };
}

/** A poll as it is stored: a new local one (no votes yet), or another server's with its counts. */
export interface PollRecord {
  options: string[];
  multiple: boolean;
  hideTotals: boolean;
  expiresAt: Date;
  tallies: number[];
  votersCount: number;
}

/** The record of a new local poll, ending `expiresIn` seconds from `now`. */
export function newPollRecord(p: NewPoll, now: Date): PollRecord {
  return {
    options: p.options,
    multiple: p.multiple,
    hideTotals: p.hideTotals,
    expiresAt: new Date(now.getTime() + p.expiresIn * 1000),
    tallies: p.options.map(() => 0),
    votersCount: 0,
  };
}

/**
 * Creates the poll of a status inside the status's transaction; a local one also has its end
 * scheduled (its author and voters hear of it then).
 */
export async function createPoll(
  rt: Runtime,
  db: Db,
  statusId: string,
  accountId: string,
  p: PollRecord,
  local: boolean,
): Promise<string> {
  const id = newId();
  const now = new Date();
  await db
    .insertInto("polls")
    .values({
      id,
      status_id: statusId,
      account_id: accountId,
      options: JSON.stringify(p.options),
      tallies: JSON.stringify(p.tallies),
      votes_count: p.tallies.reduce((n, t) => n + t, 0),
      voters_count: p.votersCount,
      multiple: p.multiple,
      hide_totals: p.hideTotals,
      expires_at: p.expiresAt,
      created_at: now,
      updated_at: now,
    })
    .execute();
  await db.updateTable("statuses").set({ poll_id: id }).where("id", "=", statusId).execute();
  if (local) await rt.queue.enqueue("polls.expire", { pollId: id }, { runAt: p.expiresAt }, db);
  return id;
}

/**
 * The poll of a status the viewer may see, or 404 (as Mastodon answers, so that nobody learns of a
 * poll they may not see).
 */
export async function visiblePoll(rt: Runtime, viewerId: string | null, pollId: string): Promise<Poll> {
  const poll = await rt.db.selectFrom("polls").selectAll().where("id", "=", pollId).executeTakeFirst();
  if (!poll) throw notFound();
  await visibleStatus(rt, viewerId, poll.status_id);
  return poll;
}

export async function vote(rt: Runtime, viewerId: string, pollId: string, choices: number[]): Promise<void> {
  const poll = await visiblePoll(rt, viewerId, pollId);
  const fail = (message: string) => unprocessable(`Validation failed: ${message}`);
  if (poll.expires_at <= new Date()) throw fail("The poll has already ended");
  if (poll.account_id === viewerId) throw fail("You cannot vote in your own poll");
  const unique = [...new Set(choices)];
  if (unique.length === 0) throw fail("Choices can't be blank");
  if (unique.some((c) => !Number.isInteger(c) || c < 0 || c >= poll.options.length)) throw fail("Choices are invalid");
  if (!poll.multiple && unique.length > 1) throw fail("Choices must be exactly one in a single-choice poll");
  await rt.db.transaction().execute(async (trx) => {
    // Votes at once (by one voter twice, or by two voters) are counted one after the other: the
    // second sees the first's vote and its tallies.
    await lockRow(trx, rt.dialect, "polls", pollId);
    const earlier = await trx
      .selectFrom("poll_votes")
      .select("id")
      .where("poll_id", "=", pollId)
      .where("account_id", "=", viewerId)
      .executeTakeFirst();
    if (earlier) throw fail("You have already voted on this poll");
    const now = new Date();
    for (const choice of unique) {
      await trx
        .insertInto("poll_votes")
        .values({ id: newId(), poll_id: pollId, account_id: viewerId, choice, created_at: now })
        .execute();
    }
    const current = await trx.selectFrom("polls").select("tallies").where("id", "=", pollId).executeTakeFirstOrThrow();
    const tallies = [...current.tallies];
    for (const choice of unique) tallies[choice] = (tallies[choice] ?? 0) + 1;
    await trx
      .updateTable("polls")
      .set({
        tallies: JSON.stringify(tallies),
        votes_count: sql`votes_count + ${unique.length}`,
        voters_count: sql`voters_count + 1`,
        updated_at: now,
      })
      .where("id", "=", pollId)
      .execute();
    await federate(rt, trx, viewerId, { type: "Vote", accountId: viewerId, pollId, choices: unique }, [
      poll.account_id,
    ]);
  });
}

/** Job: the poll ended; its author and every local voter hear of it, once. */
export async function expirePoll(rt: Runtime, { pollId }: { pollId: string }): Promise<void> {
  const poll = await rt.db.selectFrom("polls").selectAll().where("id", "=", pollId).executeTakeFirst();
  if (!poll || poll.expires_at > new Date()) return;
  const voters = await rt.db
    .selectFrom("poll_votes")
    .select("account_id")
    .distinct()
    .where("poll_id", "=", pollId)
    .execute();
  await rt.db.transaction().execute(async (trx) => {
    for (const recipientId of [poll.account_id, ...voters.map((v) => v.account_id)]) {
      const already = await trx
        .selectFrom("notifications")
        .select("id")
        .where("account_id", "=", recipientId)
        .where("type", "=", "poll")
        .where("status_id", "=", poll.status_id)
        .executeTakeFirst();
      if (!already)
        await notify(rt, trx, { recipientId, fromAccountId: poll.account_id, type: "poll", statusId: poll.status_id });
    }
  });
  await publishEvent(rt, "statuses.changed", { ids: [poll.status_id] });
}

/** A poll as one viewer sees it: with their own votes (null without a viewer). */
export interface PollView {
  poll: Poll;
  viewer: { id: string; votes: number[] } | null;
}

/** Polls by id, with the viewer's own votes. */
export async function loadPollViews(
  rt: Runtime,
  pollIds: readonly string[],
  viewerId: string | null,
): Promise<Map<string, PollView>> {
  if (pollIds.length === 0) return new Map();
  const [polls, votes] = await Promise.all([
    rt.db.selectFrom("polls").selectAll().where("id", "in", pollIds).execute(),
    viewerId
      ? rt.db
          .selectFrom("poll_votes")
          .select(["poll_id", "choice"])
          .where("poll_id", "in", pollIds)
          .where("account_id", "=", viewerId)
          .execute()
      : [],
  ]);
  return new Map(
    polls.map((poll) => [
      poll.id,
      {
        poll,
        viewer: viewerId
          ? { id: viewerId, votes: votes.filter((v) => v.poll_id === poll.id).map((v) => v.choice) }
          : null,
      },
    ]),
  );
}

/** One poll the viewer may see, as they see it, or 404. */
export async function loadPollView(rt: Runtime, viewerId: string | null, pollId: string): Promise<PollView> {
  const poll = await visiblePoll(rt, viewerId, pollId);
  return (await loadPollViews(rt, [poll.id], viewerId)).get(poll.id)!;
}
