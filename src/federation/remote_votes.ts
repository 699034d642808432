// A vote from another server on a local poll: Mastodon sends one Create of a Note per choice,
// named after the option. Each choice counts once per voter, however often it arrives.
import { sql } from "kysely";
import { lockRow } from "../db/concurrency.ts";
import { newId } from "../domain/ids.ts";
import type { Runtime } from "../runtime.ts";
import { publishEvent } from "../streaming/events.ts";

export async function recordRemoteVote(rt: Runtime, accountId: string, statusUri: string, name: string): Promise<void> {
  const poll = await rt.db
    .selectFrom("statuses as s")
    .innerJoin("polls as p", "p.id", "s.poll_id")
    .select(["p.id", "p.options", "p.multiple", "p.expires_at", "s.id as status_id", "s.local"])
    .where("s.uri", "=", statusUri)
    .executeTakeFirst();
  if (!poll?.local || poll.expires_at <= new Date()) return;
  const choice = poll.options.indexOf(name);
  if (choice < 0) return;
  const changed = await rt.db.transaction().execute(async (trx) => {
    // Votes arriving at once are counted one after the other (see vote()).
    await lockRow(trx, rt.dialect, "polls", poll.id);
    const earlier = await trx
      .selectFrom("poll_votes")
      .select("choice")
      .where("poll_id", "=", poll.id)
      .where("account_id", "=", accountId)
      .execute();
    if (earlier.some((v) => v.choice === choice)) return false;
    if (earlier.length > 0 && !poll.multiple) return false;
    await trx
      .insertInto("poll_votes")
      .values({ id: newId(), poll_id: poll.id, account_id: accountId, choice, created_at: new Date() })
      .execute();
    const current = await trx.selectFrom("polls").select("tallies").where("id", "=", poll.id).executeTakeFirstOrThrow();
    const tallies = [...current.tallies];
    tallies[choice] = (tallies[choice] ?? 0) + 1;
    await trx
      .updateTable("polls")
      .set({
        tallies: JSON.stringify(tallies),
        votes_count: sql`votes_count + 1`,
        voters_count: earlier.length === 0 ? sql`voters_count + 1` : sql`voters_count`,
        updated_at: new Date(),
      })
      .where("id", "=", poll.id)
      .execute();
    return true;
  });
  if (changed) await publishEvent(rt, "statuses.changed", { ids: [poll.status_id] });
}
