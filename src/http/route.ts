// The route pattern of a request, as metrics and traces name it.
import type { Context } from "hono";
import { routePath } from "hono/route";

/**
 * Requests Fedify answers have no Hono route (its middleware serves them): their patterns are
 * Fedify's. Whatever else no route matched (static files, 404s) is one series, "other".
 */
const FEDERATION_ROUTES: [RegExp, string][] = [
  [/^\/inbox\/?$/, "/inbox"],
  [/^\/users\/[^/]+\/inbox\/?$/, "/users/:identifier/inbox"],
  [/^\/users\/[^/]+\/?$/, "/users/:identifier"],
  [/^\/users\/[^/]+\/statuses\/[^/]+\/?$/, "/users/:username/statuses/:id"],
  [/^\/users\/[^/]+\/(?:outbox|followers|following|collections\/\w+)\/?$/, "/users/:identifier/collections"],
  [/^\/\.well-known\/webfinger$/, "/.well-known/webfinger"],
];

/** The route pattern that answered a request (after the app ran), for metrics and traces: bounded, never the raw path. */
export function routeOf(c: Context): string {
  const route = routePath(c);
  if (!route.includes("*")) return route;
  const path = c.req.path;
  for (const [pattern, name] of FEDERATION_ROUTES) if (pattern.test(path)) return name;
  return "other";
}
