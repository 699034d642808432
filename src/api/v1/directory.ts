import { z } from "zod";
import { params, router } from "../../http/hono.ts";
import { parse, zBool, zInt, zText } from "../../http/validate.ts";
import { directory } from "../../services/accounts/directory.ts";
import { accountEntities } from "../account_pages.ts";
import { tokenIfGiven, viewerId } from "../auth.ts";

export const directoryApi = router();

directoryApi.get("/api/v1/directory", tokenIfGiven("read", "read:accounts"), async (c) => {
  const p = parse(z.object({ offset: zInt(), limit: zInt(), order: zText(), local: zBool() }), await params(c));
  const ids = await directory(c.get("rt"), viewerId(c), {
    offset: Math.max(p.offset ?? 0, 0),
    // Mastodon's limit_param: 40 by default, at most twice that.
    limit: Math.min(Math.abs(p.limit ?? 40), 80),
    order: p.order === "new" ? "new" : "active",
    local: p.local ?? false,
  });
  return c.json(await accountEntities(c.get("rt"), ids));
});
