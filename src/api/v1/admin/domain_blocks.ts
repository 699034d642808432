// Admin::DomainBlocks: the server's blocks of remote domains.
import { z } from "zod";
import { type Ctx, params, router } from "../../../http/hono.ts";
import { parse, zBool, zString, zText } from "../../../http/validate.ts";
import { renderAdminDomainBlock } from "../../../serializers/admin_blocks.ts";
import {
  createDomainBlock,
  type DomainBlockInput,
  deleteDomainBlock,
  ExistingDomainBlock,
  getDomainBlock,
  listDomainBlocks,
  updateDomainBlock,
} from "../../../services/moderation/admin_domain_blocks.ts";
import { adminPage, listAnswer, staffOf, staffOnly } from "./guard.ts";

export const adminDomainBlocks = router();

const read = staffOnly("manageFederation", "admin:read", "admin:read:domain_blocks");
const write = staffOnly("manageFederation", "admin:write", "admin:write:domain_blocks");

adminDomainBlocks.get("/api/v1/admin/domain_blocks", read, async (c) =>
  listAnswer(c, await listDomainBlocks(c.get("rt"), staffOf(c), adminPage(await params(c))), renderAdminDomainBlock),
);

adminDomainBlocks.get("/api/v1/admin/domain_blocks/:id", read, async (c) =>
  c.json(renderAdminDomainBlock(await getDomainBlock(c.get("rt"), staffOf(c), c.req.param("id")))),
);

const schema = z.object({
  domain: zText(),
  severity: zText(),
  reject_media: zBool(),
  reject_reports: zBool(),
  private_comment: zString(1000),
  public_comment: zString(1000),
  obfuscate: zBool(),
});

async function input(c: Ctx): Promise<DomainBlockInput> {
  const p = parse(schema, await params(c));
  return {
    domain: p.domain,
    severity: p.severity,
    rejectMedia: p.reject_media,
    rejectReports: p.reject_reports,
    privateComment: p.private_comment,
    publicComment: p.public_comment,
    obfuscate: p.obfuscate,
  };
}

adminDomainBlocks.post("/api/v1/admin/domain_blocks", write, async (c) => {
  try {
    return c.json(renderAdminDomainBlock(await createDomainBlock(c.get("rt"), staffOf(c), await input(c))));
  } catch (error) {
    if (!(error instanceof ExistingDomainBlock)) throw error;
    return c.json({ ...error.body, existing_domain_block: renderAdminDomainBlock(error.existing) }, 422);
  }
});

adminDomainBlocks.put("/api/v1/admin/domain_blocks/:id", write, async (c) =>
  c.json(renderAdminDomainBlock(await updateDomainBlock(c.get("rt"), staffOf(c), c.req.param("id"), await input(c)))),
);

adminDomainBlocks.delete("/api/v1/admin/domain_blocks/:id", write, async (c) => {
  await deleteDomainBlock(c.get("rt"), staffOf(c), c.req.param("id"));
  return c.json({});
});
