// NodeInfo (2.0 and 2.1, from one document) and host-meta, for crawlers and other servers.

import { router } from "../http/hono.ts";
import { NODEINFO_PROFILE } from "../services/instance/nodeinfo.ts";
import { preparedResponse } from "./prepared_routes.ts";

export const wellKnown = router();

wellKnown.get("/.well-known/nodeinfo", (c) => {
  const o = c.get("rt").config.origin;
  return c.json({
    links: [
      { rel: NODEINFO_PROFILE("2.0"), href: `${o}/nodeinfo/2.0` },
      { rel: NODEINFO_PROFILE("2.1"), href: `${o}/nodeinfo/2.1` },
    ],
  });
});

for (const version of ["2.0", "2.1"] as const) {
  wellKnown.get(`/nodeinfo/${version}`, (c) => preparedResponse(c, `/nodeinfo/${version}`));
}

wellKnown.get("/.well-known/host-meta", (c) => {
  const template = `${c.get("rt").config.origin}/.well-known/webfinger?resource={uri}`;
  if ((c.req.header("accept") ?? "").includes("json") || c.req.query("format") === "json") {
    return c.json({ links: [{ rel: "lrdd", template }] });
  }
  c.header("Content-Type", "application/xrd+xml; charset=utf-8");
  return c.body(
    `<?xml version="1.0" encoding="UTF-8"?>\n<XRD xmlns="http://docs.oasis-open.org/ns/xri/xrd-1.0">\n  <Link rel="lrdd" template="${template}"/>\n</XRD>\n`,
  );
});
