// A browser that opens the server on another name of this machine (`localhost:3000` when the server
// is `127.0.0.1:3000`) is sent to the server's own address, as host-meta sends apps: the session
// cookie, the forms and every link then belong to one host. Only what a browser opens (a GET asking
// for HTML) is redirected, and only between loopback names of the same port; apps asking for JSON
// are answered on any name, as before. The app uses it only when the server's own address is a
// loopback one.
import type { MiddlewareHandler } from "hono";
import { isLoopbackHost } from "../config.ts";
import type { AppEnv } from "./hono.ts";

const port = (host: string) => /:(\d+)$/.exec(host)?.[1] ?? "";

export const oneLoopbackHost: MiddlewareHandler<AppEnv> = async (c, next) => {
  const { webDomain, origin } = c.get("rt").config;
  const host = (c.req.header("host") ?? "").toLowerCase();
  if (
    host === "" ||
    host === webDomain ||
    (c.req.method !== "GET" && c.req.method !== "HEAD") ||
    !/\btext\/html\b/.test(c.req.header("accept") ?? "") ||
    !isLoopbackHost(host) ||
    port(host) !== port(webDomain)
  ) {
    return next();
  }
  const url = new URL(c.req.url);
  return c.redirect(`${origin}${url.pathname}${url.search}`, 301);
};
