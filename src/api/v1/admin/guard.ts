// The admin API's two checks, both needed (403 otherwise): the token holds one of the route's
// scopes (`admin:read`, or the granular `admin:read:accounts`…), and the user's role holds the
// route's permission. The services check the permission again, for callers other than the API.
import type { MiddlewareHandler } from "hono";
import type { PageResult } from "../../../db/paginate.ts";
import type { Permission } from "../../../domain/roles.ts";
import type { AppEnv, Ctx } from "../../../http/hono.ts";
import type { Params } from "../../../http/params.ts";
import { requirePermission, type Staff } from "../../../services/moderation/staff.ts";
import { currentUser, requireUser } from "../../auth.ts";
import { pageParams, setLinkHeader } from "../../pagination.ts";

/** Staff whose role holds `permission`, with a token holding one of `scopes`. */
export const staffOnly = (permission: Permission, ...scopes: string[]): MiddlewareHandler<AppEnv> => {
  const token = requireUser(...scopes);
  return (c, next) =>
    token(c, async () => {
      requirePermission(staffOf(c), permission);
      await next();
    });
};

/** The acting member of staff, on a route guarded by staffOnly. */
export function staffOf(c: Ctx): Staff {
  const user = currentUser(c);
  return { accountId: user.accountId, role: user.role };
}

/** Mastodon pages its admin lists by 100, up to 200. */
export const adminPage = (all: Params) => pageParams(all, { default: 100, max: 200 });

/** A page of an admin list, rendered, with its Link header. */
export function listAnswer<T>(c: Ctx, result: PageResult<T>, render: (item: T) => unknown) {
  setLinkHeader(c, c.get("rt").config.origin, result);
  return c.json(result.items.map(render));
}
