// Domains the caller blocks: listed as plain strings, added and removed by `domain`.
import { z } from "zod";
import { params, router } from "../../http/hono.ts";
import { parse, zString } from "../../http/validate.ts";
import { blockDomain, listDomainBlocks, unblockDomain } from "../../services/relationships/user_domain_blocks.ts";
import { currentUser, requireUser } from "../auth.ts";
import { pageParams, setLinkHeader } from "../pagination.ts";

export const domainBlocks = router();

/** Mastodon pages domain blocks by 100, at most 200. */
const DOMAIN_PAGE = { default: 100, max: 200 };

// Anything given is read as text; validity is the service's to judge.
const domainSchema = z.object({
  domain: zString(),
});

domainBlocks.get("/api/v1/domain_blocks", requireUser("read:blocks"), async (c) => {
  const page = pageParams(await params(c), DOMAIN_PAGE);
  const result = await listDomainBlocks(c.get("rt"), currentUser(c).accountId, page);
  setLinkHeader(c, c.get("rt").config.origin, result);
  return c.json(result.items.map((b) => b.domain));
});

domainBlocks.post("/api/v1/domain_blocks", requireUser("write:blocks"), async (c) => {
  const p = parse(domainSchema, await params(c));
  await blockDomain(c.get("rt"), currentUser(c).accountId, p.domain);
  return c.json({});
});

domainBlocks.delete("/api/v1/domain_blocks", requireUser("write:blocks"), async (c) => {
  const p = parse(domainSchema, await params(c));
  await unblockDomain(c.get("rt"), currentUser(c).accountId, p.domain);
  return c.json({});
});
