// Admin::DomainAllows: the domains allowed to federate when federation is limited.
import { z } from "zod";
import { params, router } from "../../../http/hono.ts";
import { parse, zText } from "../../../http/validate.ts";
import { renderDomainAllow } from "../../../serializers/admin_blocks.ts";
import {
  createDomainAllow,
  deleteDomainAllow,
  getDomainAllow,
  listDomainAllows,
} from "../../../services/moderation/admin_domain_blocks.ts";
import { adminPage, listAnswer, staffOf, staffOnly } from "./guard.ts";

export const adminDomainAllows = router();

const read = staffOnly("manageFederation", "admin:read", "admin:read:domain_allows");
const write = staffOnly("manageFederation", "admin:write", "admin:write:domain_allows");

adminDomainAllows.get("/api/v1/admin/domain_allows", read, async (c) =>
  listAnswer(c, await listDomainAllows(c.get("rt"), staffOf(c), adminPage(await params(c))), renderDomainAllow),
);

adminDomainAllows.get("/api/v1/admin/domain_allows/:id", read, async (c) =>
  c.json(renderDomainAllow(await getDomainAllow(c.get("rt"), staffOf(c), c.req.param("id")))),
);

adminDomainAllows.post("/api/v1/admin/domain_allows", write, async (c) => {
  const p = parse(z.object({ domain: zText() }), await params(c));
  return c.json(renderDomainAllow(await createDomainAllow(c.get("rt"), staffOf(c), { domain: p.domain })));
});

adminDomainAllows.delete("/api/v1/admin/domain_allows/:id", write, async (c) => {
  await deleteDomainAllow(c.get("rt"), staffOf(c), c.req.param("id"));
  return c.json({});
});
