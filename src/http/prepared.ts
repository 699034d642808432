// Answers that are the same for every caller and change rarely (the instance documents, NodeInfo)
// are kept as ready bytes with their ETag. A plain GET for one of them is answered straight from
// Node's request event, before Hono, the middleware and the logger run: that is what lets these
// endpoints, which crawlers and every app's start-up hammer, go at the speed of Node itself. A GET
// with a query string (or anything unusual) still goes through the router, which answers with the
// same bytes. So does a request with a token: an app's requests are counted and answered with
// X-RateLimit-* headers, as Mastodon answers every authenticated API request. Anonymous ones (crawlers,
// the bulk of this traffic) are not counted: they cost nothing to serve.
import { createHash, randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Runtime } from "../runtime.ts";
import { EXPOSED_HEADERS } from "./cors.ts";

export interface Prepared {
  body: Buffer;
  etag: string;
  /** The headers of a 304: those of the 200 but its length. */
  headers: Record<string, string>;
  /** The headers of the 200. */
  full: Record<string, string>;
}

/** Builds (or returns the cached) prepared answer of one path. */
export type PreparedBuilder = (rt: Runtime) => Promise<Prepared>;

/** The headers every API answer carries, here for the answers made outside the router. */
const CORS = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": EXPOSED_HEADERS,
};

/**
 * `document` as JSON bytes with a strong ETag and the `Cache-Control` Mastodon sends for it.
 */
export function prepare(
  document: unknown,
  cacheControl: string,
  contentType = "application/json; charset=utf-8",
): Prepared {
  const body = Buffer.from(JSON.stringify(document));
  const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 32)}"`;
  const headers = {
    "content-type": contentType,
    "cache-control": cacheControl,
    etag,
    vary: "Origin",
    ...CORS,
  };
  return { body, etag, headers, full: { ...headers, "content-length": String(body.length) } };
}

/** Whether `ifNoneMatch` (a request header) names `etag`. */
export function matches(ifNoneMatch: string | undefined | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch === "*" || ifNoneMatch.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Node's request listener: prepared answers for the paths in `routes` (with or without one trailing
 * slash), everything else to `next` (the router).
 */
export function preparedListener(
  rt: () => Runtime,
  routes: ReadonlyMap<string, PreparedBuilder>,
  next: Listener,
): Listener {
  return (req, res) => {
    const url = req.url ?? "";
    const method = req.method;
    const build =
      (method === "GET" || method === "HEAD") && !url.includes("?") && req.headers.authorization === undefined
        ? routes.get(url.length > 1 && url.endsWith("/") ? url.slice(0, -1) : url)
        : undefined;
    if (!build) return next(req, res);
    build(rt()).then(
      (prepared) => {
        const id = req.headers["x-request-id"];
        res.setHeader("x-request-id", typeof id === "string" && id ? id.slice(0, 64) : randomUUID());
        if (matches(req.headers["if-none-match"], prepared.etag)) {
          res.writeHead(304, prepared.headers);
          res.end();
          return;
        }
        res.writeHead(200, prepared.full);
        res.end(method === "HEAD" ? undefined : prepared.body);
      },
      // The router reports the failure the usual way (and logs it).
      () => next(req, res),
    );
  };
}
