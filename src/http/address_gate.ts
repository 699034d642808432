// Addresses under a no_access IP block get nothing from this server: every request is refused
// with a 403 before anything else runs, as Mastodon's Rack::Attack blocklist does. The blocked
// networks are held in memory (see accessRefused), so the check costs no query.
import type { MiddlewareHandler } from "hono";
import { accessRefused } from "../services/moderation/ip_blocks.ts";
import { type AppEnv, clientIp } from "./hono.ts";

export const refuseBlockedAddresses: MiddlewareHandler<AppEnv> = async (c, next) => {
  const ip = clientIp(c);
  if (ip && (await accessRefused(c.get("rt"), ip))) return c.json({ error: "Forbidden" }, 403);
  return next();
};
