// Fedify in front of the routes, for the paths it serves: WebFinger, actors, inboxes, objects and
// collections. It answers ActivityStreams JSON to servers; a browser (an HTML Accept) and anything
// Fedify does not know falls through to the pages and routes behind it. `/@username` and
// `/@username/:id` asked for as ActivityStreams answer what the actor and status URLs do. What it
// serves is addressed as Mastodon addresses (addressing.ts), as what we deliver is.
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../http/hono.ts";
import { mastodonAddressing } from "./addressing.ts";
import { federation } from "./load.ts";

const FEDERATION_PATHS = /^\/(?:\.well-known\/webfinger|users\/|emojis\/|inbox\/?$|actor\/?$|@)/;
const PROFILE_PATH = /^\/@([A-Za-z0-9_]+)(?:\/(\d+))?\/?$/;

function wantsActivityStreams(accept: string | undefined): boolean {
  return accept !== undefined && /application\/(activity\+json|ld\+json)/.test(accept);
}

export const federationMiddleware: MiddlewareHandler<AppEnv> = async (c, next) => {
  const path = c.req.path;
  if (!FEDERATION_PATHS.test(path)) return next();
  let request = c.req.raw;
  if (path.startsWith("/@")) {
    const profile = PROFILE_PATH.exec(path);
    if (!profile || !wantsActivityStreams(c.req.header("accept"))) return next();
    const url = new URL(request.url);
    url.pathname = profile[2] ? `/users/${profile[1]}/statuses/${profile[2]}` : `/users/${profile[1]}`;
    request = new Request(url, request);
  }
  let fellThrough = false;
  const { federationOf } = await federation();
  const response = await federationOf(c.get("rt")).fetch(request, {
    contextData: c.get("rt"),
    onNotFound: () => {
      fellThrough = true;
      return new Response(null, { status: 404 });
    },
    onNotAcceptable: () => {
      fellThrough = true;
      return new Response(null, { status: 406 });
    },
  });
  if (fellThrough) return next();
  return servedAsMastodonWrites(response);
};

/** An ActivityStreams document Fedify serves (actor, object, collection), with Mastodon's addressing. */
async function servedAsMastodonWrites(response: Response): Promise<Response> {
  const type = response.headers.get("content-type") ?? "";
  if (response.status !== 200 || !/application\/(activity|ld)\+json/.test(type)) return response;
  const json = mastodonAddressing(await response.json());
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(JSON.stringify(json), { status: 200, headers });
}
