// Federation, loaded the first time something needs it (a delivery to the inbox, an actor or
// WebFinger request, a federation job, a remote lookup) rather than at start: Fedify and its
// dependencies cost each thread about 25 MB (measured in docs/memory.md), which a
// server that is not federating yet, and every web thread that never serves federation, would
// hold for nothing. This is the only way in: the rest of Rookery imports from here, never from
// the modules behind entry.ts.
import type { RemoteResolver } from "../services/federation/resolver.ts";

type Entry = typeof import("./entry.ts");

let loading: Promise<Entry> | undefined;

/** The federation modules, loaded once. */
export function federation(): Promise<Entry> {
  loading ??= import("./entry.ts");
  return loading;
}

type AsyncFunctionName = {
  [K in keyof Entry]: Entry[K] extends (...args: never[]) => Promise<unknown> ? K : never;
}[keyof Entry];

/** The entry's async function `name`, callable before federation is loaded (its first call loads it). */
function onFirstUse<K extends AsyncFunctionName>(name: K): Entry[K] {
  return (async (...args: unknown[]) =>
    ((await federation())[name] as (...args: unknown[]) => Promise<unknown>)(...args)) as Entry[K];
}

export const deliver = onFirstUse("deliver");
export const distribute = onFirstUse("distribute");
export const runFedifyMessage = onFirstUse("runFedifyMessage");
export const syncFeatured = onFirstUse("syncFeatured");
export const fetchReplies = onFirstUse("fetchReplies");
export const signingKey = onFirstUse("signingKey");
export const archiveActor = onFirstUse("archiveActor");
export const archiveCreates = onFirstUse("archiveCreates");

/** What the runtime carries as `rt.remote`: the remote lookups, loading federation on the first one. */
export const remoteResolver: RemoteResolver = {
  account: async (...args) => (await federation()).remoteResolver.account(...args),
  url: async (...args) => (await federation()).remoteResolver.url(...args),
  refresh: async (...args) => (await federation()).remoteResolver.refresh(...args),
};
