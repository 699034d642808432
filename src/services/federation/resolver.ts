// What the services ask of federation when a person names something on another server: an account
// by `user@domain`, or an account or status by its URL, fetched and stored so that it has an id
// here. Declared here and implemented by src/federation/resolve.ts, which the runtime carries
// (`rt.remote`), so that services never import federation (which imports services).
import type { Runtime } from "../../runtime.ts";

export interface RemoteResolver {
  /** The id of the account `username@domain` of another server, read from there when new; null when unknown. */
  account(rt: Runtime, username: string, domain: string): Promise<string | null>;
  /** What an http(s) URL names, stored: an account or a status; null when it is neither or unreachable. */
  url(rt: Runtime, url: string): Promise<{ accountId: string } | { statusId: string } | null>;
  /** Reads the actor of a stored remote account again now (its aliases may have changed); false when unreachable. */
  refresh(rt: Runtime, accountId: string): Promise<boolean>;
}
