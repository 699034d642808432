// Every route the router knows, for the tests that walk them all (so that new routes are covered
// as they are registered).
import { createApp } from "../src/app.ts";
import type { Runtime } from "../src/runtime.ts";

/** `METHOD /path/:param` → the method and path, middleware and catch-alls left out. */
export function knownRoutes(rt: Runtime): Map<string, { method: string; path: string }> {
  const routes = new Map<string, { method: string; path: string }>();
  for (const { method, path } of createApp(rt).routes) {
    if (method === "ALL" || path.includes("*")) continue;
    routes.set(`${method} ${path}`, { method, path });
  }
  return routes;
}
