// Replies from elsewhere, as Mastodon 4.4 fetches them: when someone signed in opens the thread of
// another server's status (GET /api/v1/statuses/:id/context), a job walks the status's replies
// collection, and those of the replies found, so that replies this server was never sent appear.
// The context answers at once, with an async refresh the client may follow. A status is walked at
// most once in FETCH_REPLIES_COOLDOWN_MS, and not while it is newer than CREATED_RECENTLY_MS
// (Mastodon's FETCH_REPLIES_COOLDOWN_MINUTES and FETCH_REPLIES_CREATED_RECENTLY defaults). The walk
// itself is src/federation/replies.ts.
import type { Runtime } from "../../runtime.ts";
import { type AsyncRefresh, runningRefresh, startRefresh } from "../async_refreshes.ts";

export const FETCH_REPLIES_COOLDOWN_MS = 15 * 60_000;
export const CREATED_RECENTLY_MS = 5 * 60_000;

declare module "../../jobs/queue.ts" {
  interface JobPayloads {
    /** Walks the replies collections under a remote status; `refresh` is the async refresh's key. */
    "federation.replies": { statusId: string; refresh: string };
  }
}

const refreshKey = (statusId: string) => `context:${statusId}:refresh`;

/**
 * The refresh of the replies of `statusId` (a status the viewer may see): the one running, or one
 * started now when the viewer is signed in and the status is due for it; null otherwise.
 */
export async function refreshReplies(
  rt: Runtime,
  viewerId: string | null,
  statusId: string,
): Promise<AsyncRefresh | null> {
  const key = refreshKey(statusId);
  const running = await runningRefresh(rt, key);
  if (running || viewerId === null) return running;
  const now = Date.now();
  return rt.db.transaction().execute(async (trx) => {
    // Claimed by one request only: the update sees the cool-down of any other.
    const claimed = await trx
      .updateTable("statuses")
      .set({ fetched_replies_at: new Date(now) })
      .where("id", "=", statusId)
      .where("local", "=", false)
      .where("deleted_at", "is", null)
      .where("created_at", "<=", new Date(now - CREATED_RECENTLY_MS))
      .where((eb) =>
        eb.or([
          eb("fetched_replies_at", "is", null),
          eb("fetched_replies_at", "<=", new Date(now - FETCH_REPLIES_COOLDOWN_MS)),
        ]),
      )
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) === 0) return null;
    const refresh = await startRefresh(rt, trx, key);
    await rt.queue.enqueue("federation.replies", { statusId, refresh: key }, { maxAttempts: 3 }, trx);
    return refresh;
  });
}
