// Keeping feeds right when relationships change, trimming them, and rebuilding one from scratch.
import { sql } from "kysely";
import type { Db, Dialect } from "../../db/index.ts";
import { paceChunk } from "../../jobs/pace.ts";
import type { JobContext } from "../../jobs/queue.ts";
import { logger } from "../../log.ts";
import type { Runtime } from "../../runtime.ts";
import { publishEvent } from "../../streaming/events.ts";
import { visibleTo } from "../visibility/sql.ts";
import { homeRule, listRule } from "./rules.ts";

declare module "../../jobs/queue.ts" {
  interface JobPayloads {
    /**
     * Newly followed accounts' recent statuses join the follower's home feed (or a list's): one
     * account (`authorId`), or several followed at once (`authorIds`, an import's).
     */
    "feeds.merge": { feedId: string; authorId?: string; authorIds?: string[]; listId?: string };
    /** An unfollowed, blocked or muted account's entries leave a feed (with boosts of it, if asked). */
    "feeds.unmerge": { feedId: string; authorId: string; boosts: boolean };
    /** Deleted statuses and withdrawn boosts leave every feed. */
    "feeds.remove": { statusIds: string[] };
    /** Trims every feed to its newest entries, a chunk of feeds past `after` at a time; runs every few minutes. */
    "feeds.trim": { after?: string };
    /** Rebuilds the home feeds of local accounts, a chunk at a time, past `after` (see restoreFeeds). */
    "feeds.rebuild": { after?: string };
  }
}

/** How many entries a feed keeps; reading further back queries the statuses themselves. */
export const FEED_SIZE = 800;
const MERGE_SIZE = 80;
const TRIM_EVERY_MS = 10 * 60_000;
/** A feed is trimmed once it holds more than this, so that each trim removes a good number of entries. */
const TRIM_PAST = Math.floor(FEED_SIZE * 1.1);
/**
 * Feeds a trim job looks at. Each is a walk of its index to its 881st entry, and a long one's
 * trim deletes what it gained since the last (600 entries at a post a second): on SQLite that runs
 * on the thread that answers requests, so its steps are small, as fan-out's are.
 */
const TRIM_CHUNK: Record<Dialect, number> = { sqlite: 10, postgres: 500 };
const REBUILD_CHUNK = 50;
/** The horizon of a feed that holds nothing for certain: it reads everything from the statuses. */
const NOTHING_CERTAIN = "9223372036854775807";

/** Newest-first ids of the statuses that belong in `ownerId`'s home feed, below `below` if given. */
export function homeCandidates(
  rt: Runtime,
  db: Db,
  ownerId: string,
  limit: number,
  below?: string,
  authorIds?: string[],
) {
  const owner = sql`${ownerId}`;
  return sql<{ id: string; account_id: string; reblog_of_id: string | null; reblog_author_id: string | null }>`
    select s.id as sort_id, cast(s.id as text) as id, cast(s.account_id as text) as account_id,
           cast(s.reblog_of_id as text) as reblog_of_id, cast(orig.account_id as text) as reblog_author_id
    from statuses s
    join follows f on f.target_account_id = s.account_id and f.account_id = ${ownerId}
    left join statuses orig on orig.id = s.reblog_of_id
    where ${homeRule(rt.dialect, owner)}
      ${below ? sql`and s.id < ${below}` : sql``}
      ${authorIds ? sql`and s.account_id in (${sql.join(authorIds)})` : sql``}
    union all
    select s.id, cast(s.id as text), cast(s.account_id as text), cast(s.reblog_of_id as text), cast(orig.account_id as text)
    from statuses s
    left join statuses orig on orig.id = s.reblog_of_id
    where (s.account_id = ${ownerId}
      or (s.visibility = 'direct' and exists (select 1 from status_mentions m where m.status_id = s.id and m.account_id = ${ownerId})))
      and ${visibleTo(owner, "s")}
      ${below ? sql`and s.id < ${below}` : sql``}
      ${authorIds ? sql`and s.account_id in (${sql.join(authorIds)})` : sql``}
    order by sort_id desc
    limit ${limit}`.execute(db);
}

/** Newest-first ids of a list's statuses, below `below` if given. */
export function listCandidates(
  db: Db,
  list: { id: string; account_id: string },
  limit: number,
  below?: string,
  authorIds?: string[],
) {
  return sql<{ id: string; account_id: string; reblog_of_id: string | null; reblog_author_id: string | null }>`
    select cast(s.id as text) as id, cast(s.account_id as text) as account_id,
           cast(s.reblog_of_id as text) as reblog_of_id, cast(orig.account_id as text) as reblog_author_id
    from statuses s
    join list_accounts la on la.account_id = s.account_id and la.list_id = ${list.id}
    left join statuses orig on orig.id = s.reblog_of_id
    where ${listRule(sql`${list.account_id}`, sql`${list.id}`)}
      ${below ? sql`and s.id < ${below}` : sql``}
      ${authorIds ? sql`and s.account_id in (${sql.join(authorIds)})` : sql``}
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

/**
 * The merge job: the newest MERGE_SIZE statuses of each author, at most a full feed's worth in all
 * (older ones would be trimmed away at once).
 */
export async function mergeAuthor(
  rt: Runtime,
  job: { feedId: string; authorId?: string; authorIds?: string[]; listId?: string },
): Promise<void> {
  const authorIds = job.authorIds ?? (job.authorId ? [job.authorId] : []);
  if (authorIds.length === 0) return;
  const limit = Math.min(MERGE_SIZE * authorIds.length, FEED_SIZE);
  if (job.listId) {
    const list = await rt.db
      .selectFrom("lists")
      .select(["id", "account_id"])
      .where("id", "=", job.listId)
      .executeTakeFirst();
    if (!list) return;
    const rows = await listCandidates(rt.db, list, limit, undefined, authorIds);
    await rt.db.transaction().execute((trx) => insertCollapsed(trx, list.id, rows.rows));
    return;
  }
  const rows = await homeCandidates(rt, rt.db, job.feedId, limit, undefined, authorIds);
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
  const removed = await rt.db
    .deleteFrom("feed_entries")
    .where("status_id", "in", statusIds)
    .returning(["feed_id", "status_id"])
    .execute();
  // Open streams of these feeds drop the statuses too.
  for (const statusId of statusIds) {
    const feeds = removed.filter((r) => r.status_id === statusId).map((r) => r.feed_id);
    if (feeds.length > 0) await publishEvent(rt, "feed.removed", { statusId, feeds });
  }
}

/**
 * Empties a home feed and fills it again with its newest statuses (`rookery feeds rebuild`). The
 * statuses are read after the feed is emptied, in the same transaction, so that a fan-out running
 * meanwhile loses nothing.
 */
export async function rebuildHomeFeed(rt: Runtime, ownerId: string): Promise<number> {
  return rt.db.transaction().execute(async (trx) => {
    await trx.deleteFrom("feed_entries").where("feed_id", "=", ownerId).execute();
    await trx.deleteFrom("feed_horizons").where("feed_id", "=", ownerId).execute();
    const rows = (await homeCandidates(rt, trx, ownerId, FEED_SIZE)).rows;
    await insertCollapsed(trx, ownerId, rows);
    if (rows.length === FEED_SIZE) {
      await trx
        .insertInto("feed_horizons")
        .values({ feed_id: ownerId, horizon_id: rows[rows.length - 1].id })
        .execute();
    }
    return rows.length;
  });
}

/** Rebuilds the home feeds of local accounts, a chunk at a time. */
export async function rebuildFeeds(rt: Runtime, { after }: { after?: string }): Promise<void> {
  const owners = await rt.db
    .selectFrom("users")
    .select("account_id")
    .where("account_id", ">", after ?? "0")
    .orderBy("account_id")
    .limit(REBUILD_CHUNK)
    .execute();
  for (const { account_id } of owners) await rebuildHomeFeed(rt, account_id);
  if (owners.length === REBUILD_CHUNK)
    await rt.queue.enqueue("feeds.rebuild", { after: owners.at(-1)!.account_id }, { unique: true });
}

/**
 * On PostgreSQL, feeds are lost in a crash (migration 0020), and `feeds_intact` with them. The first
 * worker to start after that puts its row back and, in the same transaction, has every feed read
 * from the statuses (a horizon above every status) until a job has rebuilt the home feeds. A list
 * feed reads from the statuses until trimming finds it long enough to hold its newest statuses.
 */
export async function restoreFeeds(rt: Runtime): Promise<void> {
  await rt.db.transaction().execute(async (trx) => {
    const restoring = await trx
      .insertInto("feeds_intact")
      .values({ intact: true })
      .onConflict((oc) => oc.column("intact").doNothing())
      .returning("intact")
      .executeTakeFirst();
    if (!restoring) return;
    logger("feeds").warn("The feeds were lost in a crash: timelines read from the statuses while they are rebuilt");
    await sql`
      insert into feed_horizons (feed_id, horizon_id)
      select id, ${NOTHING_CERTAIN} from (select account_id as id from users union all select id from lists) feeds
      where true -- SQLite would read the "on" below as the join's
      on conflict (feed_id) do update set horizon_id = excluded.horizon_id`.execute(trx);
    await rt.queue.enqueue("feeds.rebuild", {}, {}, trx);
  });
}

/**
 * Cuts every feed longer than TRIM_PAST back to its newest FEED_SIZE entries, remembering where it
 * ends: the feeds past `after`, a chunk at a time, each chunk a job, paced as imports are. Feeds are
 * found by their owners (local accounts and lists) and measured through their index, never by
 * counting every entry: a count grouped by feed read the whole table in one statement (some 18
 * million entries after 30 minutes of a post a second to 10,000 followers), and on SQLite held a
 * thread for 0.3–0.9 s. A chunk's feeds are cut in one transaction: a feed's old entries sit on a
 * page of the status index each, which neighbouring feeds' entries share, so SQLite's log takes
 * each page once per chunk rather than once per feed.
 */
export async function trimFeeds(rt: Runtime, payload?: { after?: string }, job?: JobContext): Promise<void> {
  let next: { after: string; pauseMs: number } | null = null;
  try {
    const pause = paceChunk();
    const chunk = TRIM_CHUNK[rt.dialect];
    const feeds = await feedsToTrim(rt.db, payload?.after ?? "0", chunk);
    const long = feeds.filter((f): f is { id: string; edge: string } => f.edge !== null);
    if (long.length > 0)
      await rt.db.transaction().execute(async (trx) => {
        for (const { id, edge } of long)
          await trx.deleteFrom("feed_entries").where("feed_id", "=", id).where("status_id", "<", edge).execute();
        await trx
          .insertInto("feed_horizons")
          .values(long.map(({ id, edge }) => ({ feed_id: id, horizon_id: edge })))
          .onConflict((oc) => oc.column("feed_id").doUpdateSet((eb) => ({ horizon_id: eb.ref("excluded.horizon_id") })))
          .execute();
      });
    if (feeds.length === chunk) next = { after: feeds[chunk - 1].id, pauseMs: pause() };
  } finally {
    if (next !== null)
      await rt.queue.enqueue(
        "feeds.trim",
        { after: next.after },
        { unique: true, runAt: new Date(Date.now() + next.pauseMs) },
      );
    else await scheduleTrim(rt, job?.id);
  }
}

/**
 * The next `limit` feeds past `after`, in id order, each with the entry a trim keeps last (null
 * when the feed is not past TRIM_PAST).
 */
async function feedsToTrim(db: Db, after: string, limit: number): Promise<{ id: string; edge: string | null }[]> {
  const nth = (offset: number) =>
    sql`(select e.status_id from feed_entries e where e.feed_id = c.id
         order by e.status_id desc limit 1 offset ${offset})`;
  const { rows } = await sql<{ id: string | number | bigint; edge: string | number | bigint | null }>`
    select c.id, case when ${nth(TRIM_PAST)} is null then null else ${nth(FEED_SIZE - 1)} end as edge
    from (
      select id from (
        select account_id as id from users where account_id > ${after}
        union all select id from lists where id > ${after}
      ) owners order by id limit ${limit}
    ) c
    order by c.id`.execute(db);
  return rows.map((r) => ({ id: String(r.id), edge: r.edge === null ? null : String(r.edge) }));
}

/**
 * Makes sure one trim job is scheduled besides `running` (the trim job that asks): the worker calls
 * this when it starts, and each trim when it ends. A trim run twice after a crash finds the one the
 * first run scheduled, so trims never multiply.
 */
export async function scheduleTrim(rt: Runtime, running?: string): Promise<void> {
  const pending = await rt.db
    .selectFrom("jobs")
    .select("id")
    .where("type", "=", "feeds.trim")
    .where("failed_at", "is", null)
    .$if(running !== undefined, (q) => q.where("id", "!=", running!))
    .executeTakeFirst();
  if (!pending) await rt.queue.enqueue("feeds.trim", {}, { runAt: new Date(Date.now() + TRIM_EVERY_MS) });
}
