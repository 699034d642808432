// NodeInfo 2.0 and 2.1 (one document), what crawlers and other servers read about this one.
import type { Runtime } from "../../runtime.ts";
import { ROOKERY_VERSION } from "../../version.ts";
import { activeUsers, stats } from "./instance.ts";

export const NODEINFO_PROFILE = (version: string) => `http://nodeinfo.diaspora.software/ns/schema/${version}`;

export async function nodeInfo(rt: Runtime, version: "2.0" | "2.1") {
  const s = await stats(rt);
  const software: Record<string, string> = { name: "rookery", version: ROOKERY_VERSION };
  if (version === "2.1") {
    software.repository = rt.config.sourceUrl;
    software.homepage = rt.config.sourceUrl;
  }
  return {
    version,
    software,
    protocols: ["activitypub"],
    services: { outbound: [], inbound: [] },
    usage: {
      users: { total: s.users, activeMonth: await activeUsers(rt, 30), activeHalfyear: await activeUsers(rt, 182) },
      localPosts: s.statuses,
    },
    openRegistrations: rt.config.registrations.mode === "open",
    metadata: { nodeName: rt.config.site.title, nodeDescription: rt.config.site.description },
  };
}
