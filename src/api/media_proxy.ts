// GET /media_proxy/:id/:style: Mastodon's media proxy. A remote attachment that is not in our
// storage (dropped by retention, or never kept) is named by this URL: the first request fetches it
// into storage (src/services/media/remote_cache.ts) and every request is redirected to our copy.
// Only attachments of stored remote statuses are fetched, never any URL a request names, and each
// address may make this server download only a few a minute. Media of statuses not everyone may
// see, and media that could not be copied, are redirected to their remote URL instead.

import { notFound } from "../domain/errors.ts";
import { isId } from "../domain/ids.ts";
import { clientIp, router } from "../http/hono.ts";
import { mediaStorage } from "../media/storage.ts";
import { isLoopback } from "../services/auth/sessions.ts";
import { cacheAttachment } from "../services/media/remote_cache.ts";
import { addressBucket, hit } from "../services/rate_limits.ts";

export const mediaProxy = router();

/** Downloads one address may cause, per window. */
const DOWNLOADS = { limit: 30, windowSeconds: 300 };

mediaProxy.get("/media_proxy/:id/:style", async (c) => {
  const rt = c.get("rt");
  const id = c.req.param("id");
  const style = c.req.param("style");
  if (!isId(id) || (style !== "original" && style !== "small")) throw notFound();
  const find = () =>
    rt.db
      .selectFrom("media_attachments as m")
      .innerJoin("statuses as s", "s.id", "m.status_id")
      .selectAll("m")
      .select(["s.visibility", "s.deleted_at"])
      .where("m.id", "=", id)
      .where("m.remote_url", "is not", null)
      .executeTakeFirst();
  let row = await find();
  if (!row?.remote_url || row.deleted_at !== null) throw notFound();
  const remoteUrl = row.remote_url;
  const ours = (r: { file_key: string | null; preview_key: string | null }) => {
    const key = style === "small" ? (r.preview_key ?? r.file_key) : r.file_key;
    return key ? mediaStorage(rt.config).url(key) : null;
  };
  if (row.remote_state === "cached") return c.redirect(ours(row) ?? remoteUrl, 302);
  if (row.remote_state === "failed" || (row.visibility !== "public" && row.visibility !== "unlisted")) {
    return c.redirect(remoteUrl, 302);
  }
  const limits = rt.config.rateLimits;
  const ip = clientIp(c);
  if (limits.enabled && ip && !(limits.exemptLoopback && isLoopback(ip))) {
    const count = await hit(rt, `media_proxy:${addressBucket(ip)}`, DOWNLOADS);
    if (!count.allowed) return c.json({ error: "Too many requests" }, 429);
  }
  if (await cacheAttachment(rt, row)) row = (await find()) ?? row;
  return c.redirect((row.remote_state === "cached" ? ours(row) : null) ?? remoteUrl, 302);
});
