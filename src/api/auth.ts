// Token and scope checks, answered the way Mastodon (Doorkeeper) answers them.
import type { MiddlewareHandler } from "hono";
import { ApiError } from "../domain/errors.ts";
import { grants } from "../domain/scopes.ts";
import { INACTIVE_MESSAGES, inactiveReason } from "../domain/user_state.ts";
import type { AppEnv, Ctx } from "../http/hono.ts";
import { type Auth, type AuthUser, authenticate } from "../services/auth/authenticate.ts";

/** The bearer token of a request: `Authorization: Bearer …`, or an `access_token` query parameter. */
export function tokenOf(c: Ctx): string | null {
  const header = c.req.header("authorization");
  if (header) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return m ? m[1] : null;
  }
  return c.req.query("access_token") || null;
}

/**
 * Resolves the caller for every request under it. An invalid token leaves `auth` empty here; the
 * route's guard answers 401 for it, so that routes Mastodon keeps free of token checks (instance,
 * app registration) answer as usual.
 */
export const resolveAuth: MiddlewareHandler<AppEnv> = async (c, next) => {
  const token = tokenOf(c);
  c.set("auth", token ? await authenticate(c.get("rt"), token) : null);
  await next();
};

const invalidToken = () => new ApiError(401, "The access token is invalid");
const outsideScopes = () => new ApiError(403, "This action is outside the authorized scopes");

function checkScopes(auth: Auth | null, scopes: string[]): Auth {
  if (!auth) throw invalidToken();
  if (scopes.length > 0 && !scopes.some((s) => grants(auth.scopes, s))) throw outsideScopes();
  return auth;
}

/** The user behind a token, if that user may act: Mastodon's `require_user!`. */
export function activeUser(auth: Auth): AuthUser {
  const user = auth.user;
  if (!user) throw new ApiError(422, "This method requires an authenticated user");
  const reason = inactiveReason(user);
  if (reason) throw new ApiError(403, INACTIVE_MESSAGES[reason]);
  return user;
}

/** Needs a valid token (user or app) holding one of `scopes`. */
export const requireToken =
  (...scopes: string[]): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    checkScopes(c.get("auth"), scopes);
    await next();
  };

/**
 * Open to everyone; a token, when one is sent, must be valid and hold one of `scopes`
 * (authorize_if_got_token!). A bad token is a 401, never an anonymous request: a client must learn
 * that its token is dead rather than be shown public data as a stranger.
 */
export const tokenIfGiven =
  (...scopes: string[]): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    if (c.get("auth") || tokenOf(c)) checkScopes(c.get("auth"), scopes);
    await next();
  };

/** Needs a token of an active user holding one of `scopes`. */
export const requireUser =
  (...scopes: string[]): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    activeUser(checkScopes(c.get("auth"), scopes));
    await next();
  };

/** The acting user on a route guarded by requireUser. */
export function currentUser(c: Ctx): AuthUser {
  return c.get("auth")!.user!;
}

/** The viewer's account id on routes open to everyone (null when anonymous or not an active user). */
export function viewerId(c: Ctx): string | null {
  const user = c.get("auth")?.user;
  return user && !inactiveReason(user) ? user.accountId : null;
}
