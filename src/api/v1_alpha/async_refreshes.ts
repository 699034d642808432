// GET /api/v1_alpha/async_refreshes/:id (Mastodon 4.4): how background work a request started
// stands, for a client that got its id in a Mastodon-Async-Refresh header.
import { router } from "../../http/hono.ts";
import { findRefresh } from "../../services/async_refreshes.ts";
import { requireUser } from "../auth.ts";

export const asyncRefreshes = router();

asyncRefreshes.get("/api/v1_alpha/async_refreshes/:id", requireUser("read"), async (c) => {
  const refresh = await findRefresh(c.get("rt"), c.req.param("id") ?? "");
  return c.json({ async_refresh: refresh });
});
