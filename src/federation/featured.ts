// The `federation.featured` job: another server's account, seen here for the first time, has its
// featured collection (its pinned posts) read, so that its profile shows them as on its server, as
// Mastodon's SynchronizeFeaturedCollectionWorker does. Later changes arrive as Add and Remove
// (inbox.ts). Only the collection's first page is read, and only statuses of the account's own
// server.
import { Collection } from "@fedify/fedify/vocab";
import type { Runtime } from "../runtime.ts";
import { REMOTE_PINS_MAX, replaceRemotePins } from "../services/statuses/remote_pins.ts";
import { federationOf } from "./federation.ts";
import { refused } from "./peers.ts";
import { signedLoader } from "./remote_accounts.ts";
import { statusFromUri } from "./remote_statuses.ts";

declare module "../jobs/queue.ts" {
  interface JobPayloads {
    /** Reads the remote account's featured collection and pins what it lists. */
    "federation.featured": { accountId: string };
  }
}

export async function syncFeatured(rt: Runtime, { accountId }: { accountId: string }): Promise<void> {
  const account = await rt.db
    .selectFrom("accounts")
    .select(["uri", "domain", "featured_url", "suspended_at"])
    .where("id", "=", accountId)
    .executeTakeFirst();
  if (!account?.domain || !account.featured_url || account.suspended_at) return;
  const origin = new URL(account.uri).origin;
  if (new URL(account.featured_url).origin !== origin || (await refused(rt, account.featured_url))) return;
  const ctx = federationOf(rt).createContext(new URL(rt.config.origin), rt);
  const documentLoader = await signedLoader(ctx);
  const collection = await ctx.lookupObject(account.featured_url, { documentLoader }).catch(() => null);
  if (!(collection instanceof Collection)) return;
  let items = collection.itemIds;
  if (items.length === 0 && collection.firstId) {
    const first = await collection.getFirst({ documentLoader }).catch(() => null);
    items = first?.itemIds ?? [];
  }
  const statusIds: string[] = [];
  for (const uri of items.slice(0, REMOTE_PINS_MAX)) {
    if (uri.origin !== origin) continue;
    const id = await statusFromUri(rt, ctx, uri.href);
    if (id) statusIds.push(id);
  }
  await replaceRemotePins(rt, accountId, statusIds);
}
