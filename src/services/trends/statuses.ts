// Trending statuses (GET /api/v1/trends/statuses): public, original statuses of the last two days by
// accounts that chose to be discoverable, scored by the distinct accounts that favourited or boosted
// them (the author aside), halving with every HALF_LIFE of the status's age. Then, as every list,
// only what the viewer may see; a status moderators rejected does not trend.

import { idFloor, idTime } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import { viewerValue, visibleTo } from "../visibility/sql.ts";

const WINDOW_MS = 2 * 86_400_000;
const HALF_LIFE_MS = 12 * 3_600_000;

/** Statuses trending, best first; moderators (`withRejected`) also see those they kept from trending. */
export async function trendingStatuses(
  rt: Runtime,
  viewerId: string | null,
  page: { limit: number; offset: number },
  withRejected = false,
): Promise<string[]> {
  const now = Date.now();
  const since = idFloor(new Date(now - WINDOW_MS));
  // Only interactions with statuses of the window, each read from its index by status: the union
  // of every favourite and boost ever made took about 100 ms a request at 20,000 boosts.
  const interactions = rt.db
    .selectFrom("favourites")
    .select(["status_id", "account_id"])
    .where("status_id", ">", since)
    .union(
      rt.db
        .selectFrom("statuses")
        .select(["reblog_of_id as status_id", "account_id"])
        .where("reblog_of_id", ">", since)
        .$narrowType<{ status_id: string }>()
        .where("deleted_at", "is", null),
    );
  let query = rt.db
    .selectFrom(interactions.as("i"))
    .innerJoin("statuses as s", "s.id", "i.status_id")
    .innerJoin("accounts as a", "a.id", "s.account_id")
    .select(["s.id", (eb) => eb.fn.count<number>("i.account_id").distinct().as("people")])
    .where("s.id", ">", since)
    .where("s.visibility", "=", "public")
    .where("s.reblog_of_id", "is", null)
    .where("s.in_reply_to_id", "is", null)
    .where("a.discoverable", "=", true)
    .whereRef("i.account_id", "!=", "s.account_id")
    .where(visibleTo(viewerValue(viewerId), "s"))
    .groupBy("s.id");
  if (!withRejected) query = query.where((eb) => eb.or([eb("s.trendable", "is", null), eb("s.trendable", "=", true)]));
  const rows = await query.execute();
  return rows
    .map((r) => ({ id: r.id, score: Number(r.people) * 0.5 ** ((now - idTime(r.id).getTime()) / HALF_LIFE_MS) }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? 1 : -1))
    .slice(page.offset, page.offset + page.limit)
    .map((r) => r.id);
}
