// The `federation.replies` job (src/services/statuses/remote_replies.ts starts it): walks the
// replies collection of a remote status, and those of the replies it finds, storing each reply this
// server lacks, as Mastodon 4.4's ActivityPub::FetchAllRepliesWorker does, within its limits: 1000
// replies in all, 500 from one collection, 500 collection pages fetched (FETCH_REPLIES_MAX_GLOBAL,
// _MAX_SINGLE and _MAX_PAGES), which bound the depth too. A reply is stored only when it says it
// answers the status whose collection named it; every fetch goes through src/net, signed by the
// instance actor. The async refresh counts the replies stored and ends when the walk does.
import type { DocumentLoader } from "@fedify/fedify";
import { type Collection, CollectionPage } from "@fedify/fedify/vocab";
import type { JobPayloads } from "../jobs/queue.ts";
import { logger } from "../log.ts";
import type { Runtime } from "../runtime.ts";
import { countResults, finishRefresh } from "../services/async_refreshes.ts";
import { federationOf } from "./federation.ts";
import { refused } from "./peers.ts";
import { signedLoader } from "./remote_accounts.ts";
import { isStatusObject, type StatusObject, statusByUri, storeStatus } from "./remote_statuses.ts";

const log = logger("federation");

export const MAX_REPLIES = 1000;
export const MAX_REPLIES_OF_ONE = 500;
export const MAX_PAGES = 500;

/**
 * The ids a status's replies collection lists, page after page, with the number of collection
 * documents read (each counted as a fetch, embedded or not), `maxPages` at most.
 */
async function replyIds(object: StatusObject, loader: DocumentLoader, maxPages: number) {
  const ids: string[] = [];
  let pages = 0;
  if (maxPages <= 0) return { ids, pages };
  const options = { documentLoader: loader, suppressError: true };
  let page: Collection | null = await object.getReplies(options).catch(() => null);
  pages++;
  if (page && !(page instanceof CollectionPage) && pages < maxPages) {
    // Mastodon's collection holds its items in its first page; another may hold them itself.
    const first = await page.getFirst(options).catch(() => null);
    pages++;
    if (first) page = first;
  }
  while (page && ids.length < MAX_REPLIES_OF_ONE) {
    ids.push(...page.itemIds.map((u) => u.href).slice(0, MAX_REPLIES_OF_ONE - ids.length));
    if (!(page instanceof CollectionPage) || !page.nextId || pages >= maxPages) break;
    page = await page.getNext(options).catch(() => null);
    pages++;
  }
  return { ids, pages };
}

export async function fetchReplies(rt: Runtime, { statusId, refresh }: JobPayloads["federation.replies"]) {
  try {
    const root = await rt.db
      .selectFrom("statuses")
      .select(["uri", "local", "deleted_at"])
      .where("id", "=", statusId)
      .executeTakeFirst();
    if (!root || root.local || root.deleted_at) return;
    const ctx = federationOf(rt).createContext(new URL(rt.config.origin), rt);
    const loader = await signedLoader(ctx);
    const ownHost = new URL(rt.config.origin).host;
    /** Each URI to visit, with the status it must answer (none for the root). */
    const pending: { uri: string; parent: string | null }[] = [{ uri: root.uri, parent: null }];
    const seen = new Set([root.uri]);
    let pages = 0;
    let stored = 0;
    while (pending.length > 0 && pages < MAX_PAGES) {
      const { uri, parent } = pending.pop()!;
      if (await refused(rt, uri)) continue;
      const object = await ctx.lookupObject(uri, { documentLoader: loader }).catch(() => null);
      pages++;
      if (!isStatusObject(object) || object.id?.href !== uri) continue;
      if (parent !== null) {
        if (object.replyTargetId?.href !== parent) continue;
        const known = await statusByUri(rt.db, uri);
        if (!known && (await storeStatus(rt, ctx, object))) {
          stored++;
          await countResults(rt, refresh, stored);
        }
      }
      const found = await replyIds(object, loader, MAX_PAGES - pages);
      pages += found.pages;
      for (const id of found.ids) {
        if (seen.size > MAX_REPLIES) break;
        // Our own statuses are known here already, with their replies.
        if (seen.has(id) || !URL.canParse(id) || new URL(id).host === ownHost) continue;
        seen.add(id);
        pending.push({ uri: id, parent: uri });
      }
    }
    log.debug("Fetched {stored} replies under {uri}", { stored, uri: root.uri });
  } finally {
    await finishRefresh(rt, refresh);
  }
}
