// The headers every API answer carries: no caching, and CORS open to every origin (Mastodon's
// answers are readable from any web client). They are set before the handler runs: Hono's own cors
// middleware reads `c.res` first, which makes every response be built twice and, with the Node
// adapter, be streamed instead of written in one piece.
import type { MiddlewareHandler } from "hono";
import { EXPOSED_HEADERS } from "../http/cors.ts";

const METHODS = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS";
const ALLOWED = "Authorization, Content-Type, Idempotency-Key, Accept";

export const apiHeaders: MiddlewareHandler = (c, next) => {
  c.header("Cache-Control", "no-store");
  c.header("Access-Control-Allow-Origin", "*");
  c.header("Access-Control-Expose-Headers", EXPOSED_HEADERS);
  if (c.req.method !== "OPTIONS") return next();
  // A preflight: answered here, for every path.
  c.header("Access-Control-Allow-Methods", METHODS);
  c.header("Access-Control-Allow-Headers", ALLOWED);
  c.header("Access-Control-Max-Age", "86400");
  return Promise.resolve(c.body(null, 204));
};

/** Pages with secrets or personal data in them: never cached, and never framed by another site. */
export const privatePageHeaders: MiddlewareHandler = (c, next) => {
  c.header("Cache-Control", "no-store");
  // No other site may frame the consent page and trick a click on "Authorize".
  c.header("X-Frame-Options", "DENY");
  c.header("Content-Security-Policy", "frame-ancestors 'none'");
  return next();
};
