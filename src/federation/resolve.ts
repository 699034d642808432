// Finding what another server has, for the API: `user@domain` through WebFinger, and actor or
// status URLs, fetched and stored (src/federation/remote_*.ts) so that they have ids here. The
// services reach it through the runtime, as the RemoteResolver they declare.
import { isActor } from "@fedify/fedify/vocab";
import type { Runtime } from "../runtime.ts";
import type { RemoteResolver } from "../services/federation/resolver.ts";
import { federationOf } from "./federation.ts";
import { refused } from "./peers.ts";
import { accountByUri, resolveAcct, signedLoader } from "./remote_accounts.ts";
import { statusFromUri } from "./remote_statuses.ts";

const contextOf = (rt: Runtime) => federationOf(rt).createContext(new URL(rt.config.origin), rt);

async function resolveRemoteAccount(rt: Runtime, username: string, domain: string): Promise<string | null> {
  return resolveAcct(rt, contextOf(rt), username, domain);
}

async function resolveUrl(rt: Runtime, url: string): Promise<{ accountId: string } | { statusId: string } | null> {
  const ctx = contextOf(rt);
  if (await refused(rt, url).catch(() => true)) return null;
  const object = await ctx.lookupObject(url, { documentLoader: await signedLoader(ctx) }).catch(() => null);
  if (!object?.id) return null;
  if (isActor(object)) {
    const accountId = await accountByUri(rt, ctx, object.id.href);
    return accountId ? { accountId } : null;
  }
  const statusId = await statusFromUri(rt, ctx, object.id.href);
  return statusId ? { statusId } : null;
}

async function refreshAccount(rt: Runtime, accountId: string): Promise<boolean> {
  const row = await rt.db
    .selectFrom("accounts")
    .select(["uri", "domain"])
    .where("id", "=", accountId)
    .executeTakeFirst();
  if (!row || row.domain === null) return row !== undefined;
  return (await accountByUri(rt, contextOf(rt), row.uri, { refresh: true })) === accountId;
}

export const remoteResolver: RemoteResolver = {
  account: resolveRemoteAccount,
  url: resolveUrl,
  refresh: refreshAccount,
};
