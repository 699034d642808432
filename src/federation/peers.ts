// Whether this server deals with another one: not when an operator suspended its domain (or a
// parent domain), and in limited federation mode only when an operator allowed it. Asked before
// taking an activity in, fetching from a server, and delivering to it.
import { domainAndParents } from "../domain/domain_names.ts";
import type { Runtime } from "../runtime.ts";
import { type DomainPolicy, domainPolicy } from "../services/moderation/federation_policy.ts";

export interface PeerPolicy extends DomainPolicy {
  /** Nothing is taken from it, fetched from it or sent to it. */
  refused: boolean;
}

/** `host` as accounts store their domain: the URL's host, with its port when it has one. */
export async function peerPolicy(rt: Runtime, host: string): Promise<PeerPolicy> {
  const domain = host.toLowerCase();
  const policy = await domainPolicy(rt.db, domain);
  if (policy.refused || !rt.config.limitedFederation) return policy;
  const allowed = await rt.db
    .selectFrom("domain_allows")
    .select("id")
    .where("domain", "in", domainAndParents(domain.replace(/:\d+$/, "")).concat(domain))
    .executeTakeFirst();
  return allowed ? policy : { ...policy, refused: true };
}

export async function refused(rt: Runtime, url: string | URL): Promise<boolean> {
  const host = (typeof url === "string" ? new URL(url) : url).host;
  return (await peerPolicy(rt, host)).refused;
}
