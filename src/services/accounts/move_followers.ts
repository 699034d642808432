// The `accounts.move` job, Mastodon's MoveWorker and UnfollowFollowWorker: our followers of an
// account that moved follow the new account instead, with the same options, and stop following the
// old one. A new account here takes them at once, locked or not, with the lists they had it in; one
// on another server gets a Follow (a request until it accepts), and a follower it refuses stays
// where it was. Then, as Mastodon does, our blocks and mutes of the old account extend to the new
// one, and private notes on it are copied, each saying where it came from. Run again, it finds
// nobody left to move and every note copied, and changes nothing.
import { ApiError } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import type { JobPayloads } from "../../jobs/queue.ts";
import type { Runtime } from "../../runtime.ts";
import { notify } from "../notifications/create.ts";
import { block } from "../relationships/blocks.ts";
import { type FollowOptions, insertFollow } from "../relationships/follow_graph.ts";
import { follow, unfollow } from "../relationships/follows.ts";
import { mute } from "../relationships/mutes.ts";

/** Mastodon's AccountNote::COMMENT_SIZE_LIMIT. */
const NOTE_MAX_CHARS = 2000;

interface Party {
  id: string;
  username: string;
  domain: string | null;
}

const acct = (a: Party) => (a.domain ? `${a.username}@${a.domain}` : a.username);

/** The first line of a note carried over, by which a second run knows it is there. */
const movedFrom = (source: Party) => `Moved from @${acct(source)}.`;

export async function moveFollowers(rt: Runtime, { sourceId, targetId }: JobPayloads["accounts.move"]): Promise<void> {
  const parties = await rt.db
    .selectFrom("accounts")
    .select(["id", "username", "domain", "suspended_at"])
    .where("id", "in", [sourceId, targetId])
    .execute();
  const source = parties.find((p) => p.id === sourceId);
  const target = parties.find((p) => p.id === targetId);
  if (!source || !target || target.suspended_at !== null) return;
  const followers = await rt.db
    .selectFrom("follows as f")
    .innerJoin("accounts as a", "a.id", "f.account_id")
    .select(["f.id", "f.account_id", "f.show_reblogs", "f.notify", "f.languages"])
    .where("f.target_account_id", "=", sourceId)
    .where("a.domain", "is", null)
    .where("f.account_id", "!=", targetId)
    .execute();
  for (const f of followers) {
    const options = { reblogs: f.show_reblogs, notify: f.notify, languages: f.languages };
    const moved =
      target.domain === null
        ? await followHere(rt, f.id, f.account_id, source, target, options)
        : await refusedIsFalse(() => follow(rt, f.account_id, targetId, options));
    if (moved) await refusedIsFalse(() => unfollow(rt, f.account_id, sourceId));
  }
  await carryNotes(rt, source, target);
  await carryBlocksAndMutes(rt, source, target);
}

/** Runs a service call; its refusal (a 4xx) means the follower stays as they are. */
async function refusedIsFalse(work: () => Promise<unknown>): Promise<boolean> {
  try {
    await work();
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.status < 500) return false;
    throw error;
  }
}

/**
 * A follow of a local target, made without asking it (Mastodon bypasses its lock), in the lists the
 * old follow was in. A follow that came from another server's Move is told to the target as a
 * follow is; one between two of our accounts is a rewrite, told to nobody.
 */
async function followHere(
  rt: Runtime,
  oldFollowId: string,
  followerId: string,
  source: Party,
  target: Party,
  options: FollowOptions,
): Promise<boolean> {
  const pair = { sourceId: followerId, targetId: target.id };
  await rt.db.transaction().execute(async (trx) => {
    const blocked = await trx
      .selectFrom("blocks")
      .select("id")
      .where((eb) =>
        eb.or([
          eb.and([eb("account_id", "=", followerId), eb("target_account_id", "=", target.id)]),
          eb.and([eb("account_id", "=", target.id), eb("target_account_id", "=", followerId)]),
        ]),
      )
      .executeTakeFirst();
    if (blocked) return;
    if ((await insertFollow(rt, trx, pair, options)) && source.domain !== null) {
      await notify(rt, trx, { recipientId: target.id, fromAccountId: followerId, type: "follow" });
    }
    const newFollow = await trx
      .selectFrom("follows")
      .select("id")
      .where("account_id", "=", followerId)
      .where("target_account_id", "=", target.id)
      .executeTakeFirstOrThrow();
    const lists = await trx
      .selectFrom("list_accounts")
      .select("list_id")
      .where("follow_id", "=", oldFollowId)
      .execute();
    for (const { list_id } of lists) {
      const added = await trx
        .insertInto("list_accounts")
        .values({ id: newId(), list_id, account_id: target.id, follow_id: newFollow.id, created_at: new Date() })
        .onConflict((oc) => oc.columns(["list_id", "account_id"]).doNothing())
        .executeTakeFirst();
      if (Number(added.numInsertedOrUpdatedRows ?? 0) > 0) {
        await rt.queue.enqueue("feeds.merge", { feedId: list_id, authorId: target.id, listId: list_id }, {}, trx);
      }
    }
  });
  const follows = await rt.db
    .selectFrom("follows")
    .select("id")
    .where("account_id", "=", followerId)
    .where("target_account_id", "=", target.id)
    .executeTakeFirst();
  return follows !== undefined;
}

/** Each private note on the old account, put at the head of the note on the new one (made when none). */
async function carryNotes(rt: Runtime, source: Party, target: Party): Promise<void> {
  const notes = await rt.db
    .selectFrom("account_notes")
    .select(["account_id", "comment"])
    .where("target_account_id", "=", source.id)
    .execute();
  for (const note of notes) {
    await addNote(rt, note.account_id, target, `${movedFrom(source)}\n${note.comment}`, true);
  }
}

/**
 * A note on `target` by `accountId` saying `text`: a new note, or (with `prepend`) at the head of the
 * one there, unless that already says where the account came from.
 */
async function addNote(rt: Runtime, accountId: string, target: Party, text: string, prepend: boolean) {
  const existing = await rt.db
    .selectFrom("account_notes")
    .select(["id", "comment"])
    .where("account_id", "=", accountId)
    .where("target_account_id", "=", target.id)
    .executeTakeFirst();
  const now = new Date();
  if (!existing) {
    await rt.db
      .insertInto("account_notes")
      .values({
        id: newId(),
        account_id: accountId,
        target_account_id: target.id,
        comment: [...text].slice(0, NOTE_MAX_CHARS).join(""),
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.columns(["account_id", "target_account_id"]).doNothing())
      .execute();
    return;
  }
  const firstLine = text.split("\n")[0];
  if (!prepend || existing.comment.includes(firstLine)) return;
  const comment = [...`${text}\n\n${existing.comment}`].slice(0, NOTE_MAX_CHARS).join("");
  await rt.db.updateTable("account_notes").set({ comment, updated_at: now }).where("id", "=", existing.id).execute();
}

/**
 * Our blocks and mutes of the old account extend to the new one, with a note saying why, except for
 * those who block or mute it already or follow it.
 */
async function carryBlocksAndMutes(rt: Runtime, source: Party, target: Party): Promise<void> {
  /** Whether `accountId` has a row in `table` aimed at the new account. */
  const aimsAtTarget = async (table: "blocks" | "mutes" | "follows", accountId: string) =>
    (await rt.db
      .selectFrom(table)
      .select("id")
      .where("account_id", "=", accountId)
      .where("target_account_id", "=", target.id)
      .executeTakeFirst()) !== undefined;
  const skip = async (table: "blocks" | "mutes", accountId: string) =>
    accountId === target.id || (await aimsAtTarget(table, accountId)) || (await aimsAtTarget("follows", accountId));
  const blocks = await rt.db
    .selectFrom("blocks as r")
    .innerJoin("accounts as a", "a.id", "r.account_id")
    .select("r.account_id")
    .where("r.target_account_id", "=", source.id)
    .where("a.domain", "is", null)
    .execute();
  for (const { account_id } of blocks) {
    if (await skip("blocks", account_id)) continue;
    if (await refusedIsFalse(() => block(rt, account_id, target.id))) {
      await addNote(rt, account_id, target, `${movedFrom(source)} You had blocked it.`, false);
    }
  }
  const mutes = await rt.db
    .selectFrom("mutes as r")
    .innerJoin("accounts as a", "a.id", "r.account_id")
    .select(["r.account_id", "r.hide_notifications"])
    .where("r.target_account_id", "=", source.id)
    .where("a.domain", "is", null)
    .execute();
  for (const { account_id, hide_notifications } of mutes) {
    if (await skip("mutes", account_id)) continue;
    if (await refusedIsFalse(() => mute(rt, account_id, target.id, { notifications: hide_notifications }))) {
      await addNote(rt, account_id, target, `${movedFrom(source)} You had muted it.`, false);
    }
  }
}
