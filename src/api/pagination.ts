// Pagination parameters and the Link header of every list endpoint (the paging itself is in
// src/db/paginate.ts). The Link header names `next` (older) only when older items exist, and `prev`
// (newer) when the page is not empty.
import type { Context } from "hono";
import { z } from "zod";
import type { Page, PageResult } from "../db/paginate.ts";
import { isId } from "../domain/ids.ts";
import type { Params } from "../http/params.ts";
import { parse, zInt } from "../http/validate.ts";

// Cursors that are not ids (garbage from a client) are ignored rather than failing the request.
const cursor = z.preprocess((v) => (typeof v === "number" ? String(v) : v), z.unknown());

const schema = z.object({ max_id: cursor, since_id: cursor, min_id: cursor, limit: zInt() });

export function pageParams(
  params: Params,
  limits: { default?: number; max?: number; zeroMeansAll?: boolean } = {},
): Page {
  const p = parse(schema, params);
  const max = limits.max ?? 40;
  const requested = p.limit ?? limits.default ?? 20;
  const asId = (v: unknown) => (isId(v) ? v : null);
  if (requested === 0 && limits.zeroMeansAll) return { maxId: null, sinceId: null, minId: null, limit: 0 };
  return {
    maxId: asId(p.max_id),
    sinceId: asId(p.since_id),
    minId: asId(p.min_id),
    limit: Math.min(Math.max(requested, 1), max),
  };
}

const CURSORS = new Set(["max_id", "min_id", "since_id"]);

/**
 * The filters a next page keeps: plain names and lists (`types[]`), 2 KB at most, as Mastodon keeps
 * only the parameters it knows. Echoing whatever a client sent would let it blow the answer's
 * headers past what clients accept.
 */
function linkFilters(query: string): URLSearchParams {
  const kept = new URLSearchParams();
  let size = 0;
  for (const [k, v] of new URLSearchParams(query)) {
    if (CURSORS.has(k) || !/^\w{1,64}(\[\])?$/.test(k)) continue;
    size += k.length + v.length + 2;
    if (size > 2048) break;
    kept.append(k, v);
  }
  return kept;
}

/** Sets `Link: <…?max_id=…>; rel="next", <…?min_id=…>; rel="prev"` from the request's own URL. */
export function setLinkHeader(c: Context, origin: string, result: Pick<PageResult<unknown>, "next" | "prev">): void {
  if (!result.next && !result.prev) return;
  const url = c.req.url;
  const q = url.indexOf("?");
  // The path as the client sent it (still percent-encoded), after the scheme and host, without the
  // trailing slash the router ignores.
  const path = url.slice(url.indexOf("/", url.indexOf("//") + 2), q >= 0 ? q : undefined).replace(/(.)\/$/, "$1");
  const kept = linkFilters(q >= 0 ? url.slice(q + 1) : "");
  const base = `${origin}${path}?`;
  const link = (key: "max_id" | "min_id", value: string, rel: string) => {
    const query = new URLSearchParams(kept);
    query.set(key, value);
    return `<${base}${query}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (result.next) links.push(link("max_id", result.next, "next"));
  if (result.prev) links.push(link("min_id", result.prev, "prev"));
  c.header("Link", links.join(", "));
}
