// Pagination parameters and the Link header of every list endpoint (the paging itself is in
// src/db/paginate.ts). The Link header names `next` (older) only when older items exist, and `prev`
// (newer) when the page is not empty.
import type { Context } from "hono";
import { z } from "zod";
import type { Page, PageResult } from "../db/paginate.ts";
import { isId } from "../domain/ids.ts";
import type { Params } from "./params.ts";
import { parse, zInt } from "./validate.ts";

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

/** Sets `Link: <…?max_id=…>; rel="next", <…?min_id=…>; rel="prev"` from the request's own URL. */
export function setLinkHeader(c: Context, origin: string, result: Pick<PageResult<unknown>, "next" | "prev">): void {
  const links: string[] = [];
  const build = (key: "max_id" | "min_id", value: string) => {
    const url = new URL(c.req.url);
    const out = new URL(url.pathname, origin);
    for (const [k, v] of url.searchParams) {
      if (k !== "max_id" && k !== "min_id" && k !== "since_id") out.searchParams.append(k, v);
    }
    out.searchParams.set(key, value);
    return out.toString();
  };
  if (result.next) links.push(`<${build("max_id", result.next)}>; rel="next"`);
  if (result.prev) links.push(`<${build("min_id", result.prev)}>; rel="prev"`);
  if (links.length > 0) c.header("Link", links.join(", "));
}
