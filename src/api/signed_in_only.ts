// In secure mode (AUTHORIZED_FETCH) and limited federation mode, the API answers signed-in users
// only, as Mastodon's Api::BaseController does: a request without a user's token is a 401 before
// any route looks at it. What an app needs before anyone signs in stays open: registering the
// app, signing up, custom emojis, and (in secure mode only) the instance's description.
import type { MiddlewareHandler } from "hono";
import { apiNeedsUser } from "../domain/anonymous_access.ts";
import { ApiError } from "../domain/errors.ts";
import type { AppEnv } from "../http/hono.ts";

function openToAnyone(method: string, path: string, limitedFederation: boolean): boolean {
  const p = path.length > 1 ? path.replace(/\/$/, "") : path;
  if (method === "POST" && (p === "/api/v1/apps" || p === "/api/v1/accounts")) return true;
  if (p === "/api/v1/custom_emojis") return true;
  return !limitedFederation && /^\/api\/v[12]\/instance(\/|$)/.test(p);
}

export const signedInOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  const config = c.get("rt").config;
  if (
    apiNeedsUser(config) &&
    !c.get("auth")?.user &&
    !openToAnyone(c.req.method, c.req.path, config.limitedFederation)
  ) {
    throw new ApiError(401, "This method requires an authenticated user");
  }
  await next();
};
