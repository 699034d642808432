// NodeInfo (2.0 and 2.1, from one document) and host-meta, for crawlers and other servers.

import { router } from "../http/hono.ts";
import type { Runtime } from "../runtime.ts";
import { instanceCached } from "../services/instance/cached.ts";
import { activeUsers, stats } from "../services/instance/instance.ts";
import { ROOKERY_VERSION } from "../version.ts";

export const wellKnown = router();

const SCHEMA = (v: string) => `http://nodeinfo.diaspora.software/ns/schema/${v}`;

wellKnown.get("/.well-known/nodeinfo", (c) => {
  const o = c.var.rt.config.origin;
  return c.json({
    links: [
      { rel: SCHEMA("2.0"), href: `${o}/nodeinfo/2.0` },
      { rel: SCHEMA("2.1"), href: `${o}/nodeinfo/2.1` },
    ],
  });
});

async function nodeInfo(rt: Runtime, version: "2.0" | "2.1") {
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

for (const version of ["2.0", "2.1"] as const) {
  wellKnown.get(`/nodeinfo/${version}`, async (c) => {
    const doc = await instanceCached(c.var.rt, `nodeinfo:${version}`, () => nodeInfo(c.var.rt, version));
    c.header("Content-Type", `application/json; profile="${SCHEMA(version)}#"`);
    return c.body(JSON.stringify(doc));
  });
}

wellKnown.get("/.well-known/host-meta", (c) => {
  const template = `${c.var.rt.config.origin}/.well-known/webfinger?resource={uri}`;
  if ((c.req.header("accept") ?? "").includes("json") || c.req.query("format") === "json") {
    return c.json({ links: [{ rel: "lrdd", template }] });
  }
  c.header("Content-Type", "application/xrd+xml; charset=utf-8");
  return c.body(
    `<?xml version="1.0" encoding="UTF-8"?>\n<XRD xmlns="http://docs.oasis-open.org/ns/xri/xrd-1.0">\n  <Link rel="lrdd" template="${template}"/>\n</XRD>\n`,
  );
});
