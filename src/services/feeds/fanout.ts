// Filling feeds when a status is posted, as a job: the author's own feed, the home feeds of local
// followers (in chunks, so that a post to 10,000 followers never holds the database for long), the
// lists the author is in, and the people following its hashtags. Each step tells the bus which
// feeds took the status (`feed.inserted`), so that open streams show exactly what the feeds hold.
import { sql } from "kysely";
import type { Db, Dialect } from "../../db/index.ts";
import { prepared } from "../../db/prepared.ts";
import type { Runtime } from "../../runtime.ts";
import { publishEvent } from "../../streaming/events.ts";
import { homeRule, listRule, notAlreadyBoosted, tagFollowerRule } from "./rules.ts";

declare module "../../jobs/queue.ts" {
  interface JobPayloads {
    /** Puts a status in the feeds it belongs to; `after` continues with the followers past that follow. */
    "feeds.fanout": { statusId: string; after?: string };
  }
}

/**
 * Followers per step. node:sqlite runs a statement on the thread that asked for it, and jobs run in
 * the threads that answer requests: a step of 1,000 feeds held its thread's event loop for tens of
 * milliseconds (hundreds on a loaded machine), and every request on that thread waited. Smaller steps
 * let the requests in between (each step is a job, and a job's end yields to the event loop).
 * PostgreSQL's statements run in its backends, not in the thread.
 */
const FANOUT_CHUNK: Record<Dialect, number> = { sqlite: 200, postgres: 1000 };

const ENTRY_COLUMNS = sql.raw("(feed_id, status_id, account_id, reblog_of_id, reblog_author_id)");

type FannedStatus = {
  id: string;
  author_local: boolean;
  account_id: string;
  visibility: string;
  deleted_at: Date | null;
  reblog_of_id: string | null;
  orig_account_id: string | null;
  /** False when the status is known to have no hashtags (no one following a hashtag gets it). */
  tagged?: boolean;
};

async function loadStatus(db: Db, id: string): Promise<FannedStatus | undefined> {
  return db
    .selectFrom("statuses as s")
    .leftJoin("statuses as orig", "orig.id", "s.reblog_of_id")
    .select([
      "s.id",
      "s.local as author_local",
      "s.account_id",
      "s.visibility",
      "s.deleted_at",
      "s.reblog_of_id",
      "orig.account_id as orig_account_id",
    ])
    .where("s.id", "=", id)
    .executeTakeFirst();
}

/** Adds one entry to a feed, if it is not there already; returns the feed if it took it. */
async function addEntry(
  db: Db,
  feedId: string,
  s: { id: string; account_id: string; reblog_of_id: string | null; orig_account_id: string | null },
): Promise<string[]> {
  const added = await db
    .insertInto("feed_entries")
    .values({
      feed_id: feedId,
      status_id: s.id,
      account_id: s.account_id,
      reblog_of_id: s.reblog_of_id,
      reblog_author_id: s.orig_account_id,
    })
    .onConflict((oc) => oc.columns(["feed_id", "status_id"]).doNothing())
    .returning("feed_id")
    .execute();
  return added.map((r) => r.feed_id);
}

/** Tells open streams that these feeds took the status. */
async function inserted(rt: Runtime, statusId: string, feeds: string[]): Promise<void> {
  if (feeds.length > 0) await publishEvent(rt, "feed.inserted", { statusId, feeds });
}

type Added = { feed_id: string };

/** Whether any follower of the account asked to hear of its every post (an index of those alone answers). */
export function subscribersExist(dialect: Dialect, accountId: string) {
  // Written as the index's condition is (a literal, not a parameter), so that SQLite uses it.
  const yes = dialect === "sqlite" ? sql`1` : sql`true`;
  return sql<boolean>`exists (select 1 from follows where target_account_id = ${accountId} and notify = ${yes})`;
}

export async function fanOut(rt: Runtime, { statusId, after }: { statusId: string; after?: string }): Promise<void> {
  // One transaction for the step's writes (one commit, not one per statement); the streams hear after it.
  const published = await rt.db.transaction().execute(async (trx) => {
    const status = await loadStatus(trx, statusId);
    if (!status) return [];
    // Two boosts of one status fanned out at once would each find the other's entries not yet
    // committed, and both would land in a feed that should show only the first. On PostgreSQL the
    // second waits for the first's commit (its statements then see the first's entries); SQLite
    // has one writer at a time already. Held until this transaction ends.
    if (status.reblog_of_id && rt.dialect === "postgres")
      await sql`select pg_advisory_xact_lock(${status.reblog_of_id}::bigint)`.execute(trx);
    return (await fanOutStep(rt, trx, status, after, false)).published;
  });
  await tell(rt, statusId, published);
}

/**
 * The first step of a fan-out in the caller's transaction, for another server's status that a job
 * is storing: no job of its own, and the feeds are written with the status or not at all. The
 * status is the one being inserted (an original, not a boost), so it is not read back. Returns what
 * tells the streams, to call after the commit, and whether any follower asked to hear of the
 * author's every post (read with the followers' chunk, for the caller's subscribers' job).
 */
export async function fanOutNow(
  rt: Runtime,
  db: Db,
  s: { id: string; accountId: string; visibility: string; tags: string[] },
): Promise<{ tell: () => Promise<void>; subscribed: boolean }> {
  const status: FannedStatus = {
    id: s.id,
    author_local: false,
    account_id: s.accountId,
    visibility: s.visibility,
    deleted_at: null,
    reblog_of_id: null,
    orig_account_id: null,
    tagged: s.tags.length > 0,
  };
  const { published, subscribed } = await fanOutStep(rt, db, status, undefined, true);
  return { tell: () => tell(rt, s.id, published), subscribed };
}

async function tell(rt: Runtime, statusId: string, published: Published): Promise<void> {
  for (const event of published) {
    if (event === "published") await publishEvent(rt, "statuses.published", { id: statusId });
    else await inserted(rt, statusId, event);
  }
}

/** What a step tells the streams, in order: feeds that took the status, and that it was published. */
type Published = (string[] | "published")[];

/** A step; with `askSubscribers`, also whether the author has subscribers (false for a direct status). */
async function fanOutStep(
  rt: Runtime,
  db: Db,
  status: FannedStatus,
  after: string | undefined,
  askSubscribers: boolean,
): Promise<{ published: Published; subscribed: boolean }> {
  if (status.deleted_at) return { published: [], subscribed: false };
  const statusId = status.id;

  // The feeds that took the status in this step, told in one event with the first chunk of followers.
  let first: string[] = [];
  if (after === undefined) {
    // Only local accounts have a home feed.
    const own = status.author_local ? await addEntry(db, status.account_id, status) : [];
    if (status.visibility === "direct") {
      // A direct message goes to the feeds of the local people it mentions.
      const mentioned = await db
        .selectFrom("status_mentions as m")
        .innerJoin("users as u", "u.account_id", "m.account_id")
        .select("m.account_id")
        .where("m.status_id", "=", statusId)
        .execute();
      for (const m of mentioned) own.push(...(await addEntry(db, m.account_id, status)));
      return { published: [own], subscribed: false };
    }
    first = own;
  } else if (status.visibility === "direct") {
    return { published: [], subscribed: false };
  }

  // Local followers, a chunk at a time, in follow id order; the subscribers by the same statement.
  const cursor = after ?? "0";
  const [{ edge, subscribed }] = await chunkEdge(
    db,
    { dialect: rt.dialect, askSubscribers },
    { accountId: status.account_id, cursor },
  );
  // The first step fills the lists the author is in by the same statement.
  const shape = { dialect: rt.dialect, bounded: edge !== null, first: after === undefined };
  const added = await chunkInsert(db, shape, { statusId, cursor, edge, now: new Date() });
  const published: Published = [[...first, ...added.map((r) => r.feed_id)]];
  if (after === undefined) {
    // After the followers' feeds, whose streams wait for the post most.
    published.push("published");
    if (status.visibility === "public" && !status.reblog_of_id && status.tagged !== false)
      published.push(await fanOutToTagFollowers(db, statusId));
  }
  if (edge) await rt.queue.enqueue("feeds.fanout", { statusId, after: edge }, { unique: true }, db);
  // SQLite answers 0 or 1.
  return { published, subscribed: Boolean(subscribed) };
}

/** The end of the chunk of followers past `cursor` (null for the last chunk), and whether any follower asked to hear of every post. */
const chunkEdge = prepared(
  (db, s: { dialect: Dialect; askSubscribers: boolean }, v: { accountId: string; cursor: string }) =>
    db.selectNoFrom((eb) => [
      eb
        .selectFrom("follows")
        .select("id")
        .where("target_account_id", "=", v.accountId)
        .where("id", ">", v.cursor)
        .orderBy("id")
        .limit(1)
        .offset(FANOUT_CHUNK[s.dialect] - 1)
        .as("edge"),
      (s.askSubscribers ? subscribersExist(s.dialect, v.accountId) : sql.lit(false)).as("subscribed"),
    ]),
);

/** Puts the status in the home feeds of the chunk's followers (and, in the first, the lists it belongs in). */
const chunkInsert = prepared(
  (
    _db,
    s: { dialect: Dialect; bounded: boolean; first: boolean },
    v: { statusId: string; cursor: string; edge: string | null; now: Date },
  ) => sql<Added>`
    insert into feed_entries ${ENTRY_COLUMNS}
    select f.account_id, s.id, s.account_id, s.reblog_of_id, orig.account_id
    from statuses s
    join follows f on f.target_account_id = s.account_id
    join users u on u.account_id = f.account_id
    left join statuses orig on orig.id = s.reblog_of_id
    where s.id = ${v.statusId} and f.id > ${v.cursor} ${s.bounded ? sql`and f.id <= ${v.edge}` : sql``}
      and ${homeRule(s.dialect, sql.ref("f.account_id"), v.now)}
      and ${notAlreadyBoosted(sql.ref("f.account_id"))}
    ${s.first ? sql`union all ${listEntries(v.statusId, v.now)}` : sql``}
    on conflict do nothing
    returning feed_id`,
);

/** The entries of the lists the author is in (list ids and account ids never meet: both are unique ids). */
function listEntries(statusId: string, now: Date) {
  return sql`
    select l.id, s.id, s.account_id, s.reblog_of_id, orig.account_id
    from statuses s
    join list_accounts la on la.account_id = s.account_id
    join lists l on l.id = la.list_id
    left join statuses orig on orig.id = s.reblog_of_id
    where s.id = ${statusId}
      and ${listRule(sql.ref("l.account_id"), sql.ref("l.id"), now)}
      and ${notAlreadyBoosted(sql.ref("l.id"))}`;
}

async function fanOutToTagFollowers(db: Db, statusId: string): Promise<string[]> {
  const added = await sql<Added>`
    insert into feed_entries ${ENTRY_COLUMNS}
    select distinct tf.account_id, s.id, s.account_id, s.reblog_of_id, orig.account_id
    from statuses s
    join status_tags st on st.status_id = s.id
    join tag_follows tf on tf.tag_id = st.tag_id
    left join statuses orig on orig.id = s.reblog_of_id
    where s.id = ${statusId} and tf.account_id <> s.account_id
      and ${tagFollowerRule(sql.ref("tf.account_id"))}
    on conflict do nothing
    returning feed_id`.execute(db);
  return added.rows.map((r) => r.feed_id);
}
