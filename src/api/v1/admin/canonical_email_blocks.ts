// Admin::CanonicalEmailBlocks: addresses kept from signing up again, in all their spellings.
import { z } from "zod";
import { params, router } from "../../../http/hono.ts";
import { parse, zText } from "../../../http/validate.ts";
import { renderCanonicalEmailBlock } from "../../../serializers/admin_blocks.ts";
import {
  createCanonicalEmailBlock,
  deleteCanonicalEmailBlock,
  getCanonicalEmailBlock,
  listCanonicalEmailBlocks,
  matchingCanonicalEmailBlocks,
} from "../../../services/moderation/canonical_email_blocks.ts";
import { adminPage, listAnswer, staffOf, staffOnly } from "./guard.ts";

export const adminCanonicalEmailBlocks = router();

const read = staffOnly("manageBlocks", "admin:read", "admin:read:canonical_email_blocks");
const write = staffOnly("manageBlocks", "admin:write", "admin:write:canonical_email_blocks");

adminCanonicalEmailBlocks.get("/api/v1/admin/canonical_email_blocks", read, async (c) =>
  listAnswer(
    c,
    await listCanonicalEmailBlocks(c.get("rt"), staffOf(c), adminPage(await params(c))),
    renderCanonicalEmailBlock,
  ),
);

// Before /:id, which would take "test" for an id.
adminCanonicalEmailBlocks.post("/api/v1/admin/canonical_email_blocks/test", read, async (c) => {
  const p = parse(z.object({ email: z.string().max(320) }), await params(c));
  return c.json((await matchingCanonicalEmailBlocks(c.get("rt"), staffOf(c), p.email)).map(renderCanonicalEmailBlock));
});

adminCanonicalEmailBlocks.get("/api/v1/admin/canonical_email_blocks/:id", read, async (c) =>
  c.json(renderCanonicalEmailBlock(await getCanonicalEmailBlock(c.get("rt"), staffOf(c), c.req.param("id")))),
);

adminCanonicalEmailBlocks.post("/api/v1/admin/canonical_email_blocks", write, async (c) => {
  const p = parse(z.object({ email: zText(320), canonical_email_hash: zText(64) }), await params(c));
  const block = await createCanonicalEmailBlock(c.get("rt"), staffOf(c), {
    email: p.email,
    canonicalEmailHash: p.canonical_email_hash,
  });
  return c.json(renderCanonicalEmailBlock(block));
});

adminCanonicalEmailBlocks.delete("/api/v1/admin/canonical_email_blocks/:id", write, async (c) => {
  await deleteCanonicalEmailBlock(c.get("rt"), staffOf(c), c.req.param("id"));
  return c.json({});
});
