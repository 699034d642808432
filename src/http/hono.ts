// The Hono environment every route shares: the runtime, the caller, and parameter access.
import type { HttpBindings } from "@hono/node-server";
import { type Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Runtime } from "../runtime.ts";
import type { Auth } from "../services/auth/authenticate.ts";
import { type Params, requestParams } from "./params.ts";

/** Variables are read with `c.get(…)`: Hono's `c.var` copies all of them into a new object on every read. */
export interface AppEnv {
  Bindings: Partial<HttpBindings>;
  Variables: {
    rt: Runtime;
    /** The caller's token, when a valid one was sent. */
    auth: Auth | null;
    requestId: string;
  };
}

export type Ctx = Context<AppEnv>;

export const router = () => new Hono<AppEnv>();

/** Query and body parameters merged (the body wins), parsed once. */
export function params(c: Ctx): Promise<Params> {
  // Media uploads are the largest bodies a client sends.
  return requestParams(c, c.get("rt").config.limits.videoSize + 1024 * 1024);
}

const LOOPBACK_OR_PRIVATE = /^(127\.|10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|::1$|::ffff:127\.|fc|fd)/;

/**
 * The client's address. Behind a reverse proxy on the same machine or network, the proxy's
 * X-Forwarded-For tells it; a public peer's header is not trusted.
 */
export function clientIp(c: Ctx): string | null {
  return addressOf(c.env?.incoming?.socket?.remoteAddress ?? null, c.req.header("x-forwarded-for"));
}

/** clientIp from the connection's peer and the X-Forwarded-For header (for Node's own requests). */
export function addressOf(peer: string | null, forwarded: string | undefined): string | null {
  if (peer && forwarded && LOOPBACK_OR_PRIVATE.test(peer)) {
    const last = forwarded.split(",").pop()?.trim();
    if (last) return last;
  }
  return peer;
}

/** An answer of JSON written already (src/serializers/json_text.ts). */
export function sendJson(c: Ctx, json: Buffer<ArrayBuffer>, status: ContentfulStatusCode = 200): Response {
  c.header("Content-Type", "application/json");
  return c.body(json, status);
}
