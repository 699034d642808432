// Whether this server deals with another one (the domain policy: blocks, and in limited federation
// mode the allowed domains), asked before taking an activity in, fetching from a server, and
// delivering to it.
import type { Runtime } from "../runtime.ts";
import { type DomainPolicy, domainPolicy } from "../services/moderation/federation_policy.ts";

/** `host` as accounts store their domain: the URL's host, with its port when it has one. */
export const peerPolicy = (rt: Runtime, host: string): Promise<DomainPolicy> => domainPolicy(rt, host.toLowerCase());

export async function refused(rt: Runtime, url: string | URL): Promise<boolean> {
  const host = (typeof url === "string" ? new URL(url) : url).host;
  return (await peerPolicy(rt, host)).refused;
}
