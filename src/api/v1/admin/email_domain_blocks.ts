// Admin::EmailDomainBlocks: email domains sign-ups may not use (or only with approval).
import { z } from "zod";
import { params, router } from "../../../http/hono.ts";
import { parse, zBool, zText } from "../../../http/validate.ts";
import { renderEmailDomainBlock } from "../../../serializers/admin_blocks.ts";
import {
  createEmailDomainBlock,
  deleteEmailDomainBlock,
  getEmailDomainBlock,
  listEmailDomainBlocks,
} from "../../../services/moderation/email_domain_blocks.ts";
import { adminPage, listAnswer, staffOf, staffOnly } from "./guard.ts";

export const adminEmailDomainBlocks = router();

const read = staffOnly("manageBlocks", "admin:read", "admin:read:email_domain_blocks");
const write = staffOnly("manageBlocks", "admin:write", "admin:write:email_domain_blocks");

adminEmailDomainBlocks.get("/api/v1/admin/email_domain_blocks", read, async (c) =>
  listAnswer(
    c,
    await listEmailDomainBlocks(c.get("rt"), staffOf(c), adminPage(await params(c))),
    renderEmailDomainBlock,
  ),
);

adminEmailDomainBlocks.get("/api/v1/admin/email_domain_blocks/:id", read, async (c) =>
  c.json(renderEmailDomainBlock(await getEmailDomainBlock(c.get("rt"), staffOf(c), c.req.param("id")))),
);

adminEmailDomainBlocks.post("/api/v1/admin/email_domain_blocks", write, async (c) => {
  const p = parse(z.object({ domain: zText(), allow_with_approval: zBool() }), await params(c));
  const block = await createEmailDomainBlock(c.get("rt"), staffOf(c), {
    domain: p.domain,
    allowWithApproval: p.allow_with_approval,
  });
  return c.json(renderEmailDomainBlock(block));
});

adminEmailDomainBlocks.delete("/api/v1/admin/email_domain_blocks/:id", write, async (c) => {
  await deleteEmailDomainBlock(c.get("rt"), staffOf(c), c.req.param("id"));
  return c.json({});
});
