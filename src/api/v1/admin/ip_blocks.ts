// Admin::IpBlocks: networks whose sign-ups need approval, are refused, or that may not sign in.
import { z } from "zod";
import { type Ctx, params, router } from "../../../http/hono.ts";
import { parse, zNullableInt, zText } from "../../../http/validate.ts";
import { renderIpBlock } from "../../../serializers/admin_blocks.ts";
import {
  createIpBlock,
  deleteIpBlock,
  getIpBlock,
  type IpBlockInput,
  listIpBlocks,
  updateIpBlock,
} from "../../../services/moderation/ip_blocks.ts";
import { adminPage, listAnswer, staffOf, staffOnly } from "./guard.ts";

export const adminIpBlocks = router();

const read = staffOnly("manageBlocks", "admin:read", "admin:read:ip_blocks");
const write = staffOnly("manageBlocks", "admin:write", "admin:write:ip_blocks");

adminIpBlocks.get("/api/v1/admin/ip_blocks", read, async (c) =>
  listAnswer(c, await listIpBlocks(c.get("rt"), staffOf(c), adminPage(await params(c))), renderIpBlock),
);

adminIpBlocks.get("/api/v1/admin/ip_blocks/:id", read, async (c) =>
  c.json(renderIpBlock(await getIpBlock(c.get("rt"), staffOf(c), c.req.param("id")))),
);

const schema = z.object({
  ip: zText(100),
  severity: zText(),
  comment: z.string().max(1000).optional(),
  expires_in: zNullableInt(),
});

async function input(c: Ctx): Promise<IpBlockInput> {
  const p = parse(schema, await params(c));
  return { ip: p.ip, severity: p.severity, comment: p.comment, expiresIn: p.expires_in };
}

adminIpBlocks.post("/api/v1/admin/ip_blocks", write, async (c) =>
  c.json(renderIpBlock(await createIpBlock(c.get("rt"), staffOf(c), await input(c)))),
);

adminIpBlocks.put("/api/v1/admin/ip_blocks/:id", write, async (c) =>
  c.json(renderIpBlock(await updateIpBlock(c.get("rt"), staffOf(c), c.req.param("id"), await input(c)))),
);

adminIpBlocks.delete("/api/v1/admin/ip_blocks/:id", write, async (c) => {
  await deleteIpBlock(c.get("rt"), staffOf(c), c.req.param("id"));
  return c.json({});
});
