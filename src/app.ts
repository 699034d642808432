// The HTTP application: shared middleware, error rendering, and every router.
import { randomUUID } from "node:crypto";
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { resolveAuth } from "./api/auth.ts";
import { mediaFiles, publicFiles } from "./api/files.ts";
import { apiHeaders, privatePageHeaders } from "./api/headers.ts";
import { apiRateLimits } from "./api/rate_limits.ts";
import { routers } from "./api/routes.ts";
import { signedInOnly } from "./api/signed_in_only.ts";
import { isLoopbackHost } from "./config.ts";
import { uniqueViolation } from "./db/concurrency.ts";
import { databaseUnavailable, retryAfterSeconds } from "./db/unavailable.ts";
import { ApiError } from "./domain/errors.ts";
import { federationMiddleware } from "./federation/middleware.ts";
import { refuseBlockedAddresses } from "./http/address_gate.ts";
import { federationGate } from "./http/federation_gate.ts";
import type { AppEnv, Ctx } from "./http/hono.ts";
import { oneLoopbackHost } from "./http/loopback_host.ts";
import { shedUnderMemoryPressure } from "./http/memory_pressure.ts";
import { refuseNulInUrl, releaseBody } from "./http/params.ts";
import { logger } from "./log.ts";
import type { Runtime } from "./runtime.ts";

const log = logger("http");

/** Paths that answer like the API: JSON errors, no caching, open CORS. */
const API_PREFIXES = ["/api/", "/oauth/token", "/oauth/revoke", "/oauth/userinfo", "/.well-known/", "/nodeinfo/"];
const isApiPath = (path: string) => API_PREFIXES.some((p) => path.startsWith(p));
// Pages with a person's session or forms, at these roots and below them.
const PRIVATE_ROOTS = ["/oauth", "/auth", "/admin", "/settings", "/invites", "/invite"];
const isPrivatePage = (path: string) =>
  PRIVATE_ROOTS.some((r) => path.startsWith(r) && (path.length === r.length || path[r.length] === "/"));

/** The request's body stopped before its end because the connection closed. */
function bodyCutShort(c: Ctx): boolean {
  const incoming = c.env?.incoming;
  return incoming !== undefined && !incoming.complete && incoming.destroyed;
}

export function createApp(rt: Runtime): Hono<AppEnv> {
  // Rails ignores a trailing slash and clients rely on it (Mastodon.py asks for /api/v1/instance/):
  // every path answers with and without one, the same way, without a redirect.
  const app = new Hono<AppEnv>({ strict: false });

  const metrics = rt.metrics;
  if (rt.tracing) app.use(rt.tracing.requests);
  app.use(async (c, next) => {
    const started = performance.now();
    const requestId = c.req.header("x-request-id")?.slice(0, 64) || randomUUID();
    c.set("rt", rt);
    c.set("requestId", requestId);
    c.header("X-Request-Id", requestId);
    await next();
    releaseBody(c);
    const ms = performance.now() - started;
    metrics?.request(c, ms / 1000);
    log.info("{method} {path} {status} {ms}ms", {
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      ms: Math.round(ms * 10) / 10,
      requestId,
    });
  });

  app.use((c, next) => {
    if (isApiPath(c.req.path)) return apiHeaders(c, next);
    if (isPrivatePage(c.req.path)) return privatePageHeaders(c, next);
    return next();
  });

  app.use(shedUnderMemoryPressure(rt.config.memory.shedAt));
  app.use(refuseBlockedAddresses);
  app.use(refuseNulInUrl);
  // Only a server on a loopback address has other loopback names to send browsers from.
  if (isLoopbackHost(rt.config.webDomain)) app.use(oneLoopbackHost);
  app.use("/api/*", resolveAuth);
  app.use("/api/*", signedInOnly);
  app.use("/api/*", apiRateLimits(rt));
  app.use("/oauth/userinfo", resolveAuth);

  app.use(federationGate);
  app.use(federationMiddleware);
  app.use("/system/*", mediaFiles(rt));
  for (const r of routers) app.route("/", r);
  app.use("*", publicFiles);

  app.notFound((c) => c.json({ error: "Record not found" }, 404));
  app.onError((error, c) => {
    if (error instanceof ApiError) {
      for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
      return c.json(error.body, error.status);
    }
    if (error instanceof HTTPException) {
      const status = error.status >= 500 ? 400 : error.status;
      return c.json({ error: error.message || "Bad request" }, status);
    }
    if (uniqueViolation(error)) {
      // A row another request added at the same moment: what Mastodon answers for its RecordNotUnique.
      log.warn("{method} {path}: a unique constraint refused the write: {error}", {
        method: c.req.method,
        path: c.req.path,
        requestId: c.get("requestId"),
        error: String(error),
      });
      return c.json({ error: "Duplicate record" }, 422);
    }
    if (bodyCutShort(c)) {
      // The client went away mid-body: nothing failed here, and nobody reads the answer.
      log.info("{method} {path}: the client closed the connection before sending the whole body", {
        method: c.req.method,
        path: c.req.path,
        requestId: c.get("requestId"),
      });
      return c.json({ error: "The request body was cut short" }, 400);
    }
    if (databaseUnavailable(error)) {
      log.warn("{method} {path}: the database is unavailable: {error}", {
        method: c.req.method,
        path: c.req.path,
        error: String(error),
      });
      c.header("Retry-After", String(retryAfterSeconds(error)));
      return c.json({ error: "The database is unavailable for a moment, please try again" }, 503);
    }
    log.error("Unhandled error in {method} {path} ({requestId}): {error}", {
      method: c.req.method,
      path: c.req.path,
      requestId: c.get("requestId"),
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
    return c.json({ error: `Internal server error (request ${c.get("requestId")})` }, 500);
  });
  return app;
}
