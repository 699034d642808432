// Keeping feeds right when relationships change, trimming them, and rebuilding one from scratch.
import { sql } from "kysely";
import type { Db } from "../../db/index.ts";
import { logger } from "../../log.ts";
import type { Runtime } from "../../runtime.ts";
import { homeRule, listRule } from "./rules.ts";

declare module "../../jobs/queue.ts" {
  interface JobPayloads {
    /** A newly followed account's recent statuses join the follower's home feed. */
    "feeds.merge": { feedId: string; authorId: string; listId?: string };
    /** An unfollowed, blocked or muted account's entries leave a feed (with boosts of it, if asked). */
    "feeds.unmerge": { feedId: string; authorId: string; boosts: boolean };
    /** Deleted statuses and withdrawn boosts leave every feed. */
    "feeds.remove": { statusIds: string[] };
    /** Trims every feed to its newest entries; runs every few minutes. */
    "feeds.trim": Record<string, never>;
  }
}

/** How many entries a feed keeps; reading further back queries the statuses themselves. */
export const FEED_SIZE = 800;
const MERGE_SIZE = 80;
const TRIM_EVERY_MS = 10 * 60_000;

/** Newest-first ids of the statuses that belong in `ownerId`'s home feed, below `below` if given. */
export function homeCandidates(rt: Runtime, db: Db, ownerId: string, limit: number, below?: string, authorId?: string) {
  const owner = sql`${ownerId}`;
  return sql<{ id: string; account_id: string; reblog_of_id: string | null; reblog_author_id: string | null }>`
    select s.id as sort_id, cast(s.id as text) as id, cast(s.account_id as text) as account_id,
           cast(s.reblog_of_id as text) as reblog_of_id, cast(orig.account_id as text) as reblog_author_id
    from statuses s
    join follows f on f.target_account_id = s.account_id and f.account_id = ${ownerId}
    left join statuses orig on orig.id = s.reblog_of_id
    where ${homeRule(rt.dialect, owner)}
      ${below ? sql`and s.id < ${below}` : sql``}
      ${authorId ? sql`and s.account_id = ${authorId}` : sql``}
    union all
    select s.id, cast(s.id as text), cast(s.account_id as text), cast(s.reblog_of_id as text), cast(orig.account_id as text)
    from statuses s
    left join statuses orig on orig.id = s.reblog_of_id
    where s.deleted_at is null and (s.account_id = ${ownerId}
      or (s.visibility = 'direct' and exists (select 1 from status_mentions m where m.status_id = s.id and m.account_id = ${ownerId})))
      ${below ? sql`and s.id < ${below}` : sql``}
      ${authorId ? sql`and s.account_id = ${authorId}` : sql``}
    order by sort_id desc
    limit ${limit}`.execute(db);
}

/** Newest-first ids of a list's statuses, below `below` if given. */
export function listCandidates(
  db: Db,
  list: { id: string; account_id: string },
  limit: number,
  below?: string,
  authorId?: string,
) {
  return sql<{ id: string; account_id: string; reblog_of_id: string | null; reblog_author_id: string | null }>`
    select cast(s.id as text) as id, cast(s.account_id as text) as account_id,
           cast(s.reblog_of_id as text) as reblog_of_id, cast(orig.account_id as text) as reblog_author_id
    from statuses s
    join list_accounts la on la.account_id = s.account_id and la.list_id = ${list.id}
    left join statuses orig on orig.id = s.reblog_of_id
    where ${listRule(sql`${list.account_id}`, sql`${list.id}`)}
      ${below ? sql`and s.id < ${below}` : sql``}
      ${authorId ? sql`and s.account_id = ${authorId}` : sql``}
    order by s.id desc
    limit ${limit}`.execute(db);
}

type Candidate = { id: string; account_id: string; reblog_of_id: string | null; reblog_author_id: string | null };

/** Inserts candidates oldest first, skipping a boost of something already in the feed. */
async function insertCollapsed(db: Db, feedId: string, candidates: Candidate[]): Promise<void> {
  const present = new Set(
    (
      await db.selectFrom("feed_entries").select(["status_id", "reblog_of_id"]).where("feed_id", "=", feedId).execute()
    ).flatMap((e) => [e.status_id, e.reblog_of_id ?? ""]),
  );
  for (const c of [...candidates].reverse()) {
    if (c.reblog_of_id && present.has(c.reblog_of_id)) continue;
    await db
      .insertInto("feed_entries")
      .values({
        feed_id: feedId,
        status_id: c.id,
        account_id: c.account_id,
        reblog_of_id: c.reblog_of_id,
        reblog_author_id: c.reblog_author_id,
      })
      .onConflict((oc) => oc.columns(["feed_id", "status_id"]).doNothing())
      .execute();
    present.add(c.id);
    if (c.reblog_of_id) present.add(c.reblog_of_id);
  }
}

export async function mergeAuthor(
  rt: Runtime,
  job: { feedId: string; authorId: string; listId?: string },
): Promise<void> {
  if (job.listId) {
    const list = await rt.db
      .selectFrom("lists")
      .select(["id", "account_id"])
      .where("id", "=", job.listId)
      .executeTakeFirst();
    if (!list) return;
    const rows = await listCandidates(rt.db, list, MERGE_SIZE, undefined, job.authorId);
    await rt.db.transaction().execute((trx) => insertCollapsed(trx, list.id, rows.rows));
    return;
  }
  const rows = await homeCandidates(rt, rt.db, job.feedId, MERGE_SIZE, undefined, job.authorId);
  await rt.db.transaction().execute((trx) => insertCollapsed(trx, job.feedId, rows.rows));
}

export async function unmergeAuthor(
  rt: Runtime,
  job: { feedId: string; authorId: string; boosts: boolean },
): Promise<void> {
  await rt.db
    .deleteFrom("feed_entries")
    .where("feed_id", "=", job.feedId)
    .where((eb) =>
      job.boosts
        ? eb.or([eb("account_id", "=", job.authorId), eb("reblog_author_id", "=", job.authorId)])
        : eb("account_id", "=", job.authorId),
    )
    .execute();
}

export async function removeStatuses(rt: Runtime, { statusIds }: { statusIds: string[] }): Promise<void> {
  if (statusIds.length === 0) return;
  await rt.db.deleteFrom("feed_entries").where("status_id", "in", statusIds).execute();
}

/** Empties a home feed and fills it again with its newest statuses (`rookery feeds rebuild`). */
export async function rebuildHomeFeed(rt: Runtime, ownerId: string): Promise<number> {
  const rows = (await homeCandidates(rt, rt.db, ownerId, FEED_SIZE)).rows;
  await rt.db.transaction().execute(async (trx) => {
    await trx.deleteFrom("feed_entries").where("feed_id", "=", ownerId).execute();
    await trx.deleteFrom("feed_horizons").where("feed_id", "=", ownerId).execute();
    await insertCollapsed(trx, ownerId, rows);
    if (rows.length === FEED_SIZE) {
      await trx
        .insertInto("feed_horizons")
        .values({ feed_id: ownerId, horizon_id: rows[rows.length - 1].id })
        .execute();
    }
  });
  return rows.length;
}

/** Cuts every feed longer than FEED_SIZE back to its newest entries, remembering where it ends. */
export async function trimFeeds(rt: Runtime): Promise<void> {
  try {
    const long = await rt.db
      .selectFrom("feed_entries")
      .select("feed_id")
      .groupBy("feed_id")
      .having((eb) => eb.fn.countAll(), ">", Math.floor(FEED_SIZE * 1.1))
      .execute();
    for (const { feed_id } of long) {
      const edge = await rt.db
        .selectFrom("feed_entries")
        .select("status_id")
        .where("feed_id", "=", feed_id)
        .orderBy("status_id", "desc")
        .offset(FEED_SIZE - 1)
        .limit(1)
        .executeTakeFirst();
      if (!edge) continue;
      await rt.db.transaction().execute(async (trx) => {
        await trx
          .deleteFrom("feed_entries")
          .where("feed_id", "=", feed_id)
          .where("status_id", "<", edge.status_id)
          .execute();
        await trx
          .insertInto("feed_horizons")
          .values({ feed_id, horizon_id: edge.status_id })
          .onConflict((oc) => oc.column("feed_id").doUpdateSet({ horizon_id: edge.status_id }))
          .execute();
      });
    }
    if (long.length > 0) logger("feeds").info("Trimmed {count} feeds", { count: long.length });
  } finally {
    await rt.queue.enqueue("feeds.trim", {}, { runAt: new Date(Date.now() + TRIM_EVERY_MS) });
  }
}

/** Makes sure one trim job is scheduled (the worker calls this when it starts). */
export async function scheduleTrim(rt: Runtime): Promise<void> {
  const pending = await rt.db
    .selectFrom("jobs")
    .select("id")
    .where("type", "=", "feeds.trim")
    .where("failed_at", "is", null)
    .executeTakeFirst();
  if (!pending) await rt.queue.enqueue("feeds.trim", {}, { runAt: new Date(Date.now() + TRIM_EVERY_MS) });
}
