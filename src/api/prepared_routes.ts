// The answers served as prepared bytes (src/http/prepared.ts), by path. Each is cached with what it
// is made of, so whatever changes that makes it anew: the instance documents (rules, texts, domain
// blocks, a minute passing), the custom emojis (an emoji added or removed, a minute passing).
import type { Ctx } from "../http/hono.ts";
import { matches, type PreparedBuilder, prepare } from "../http/prepared.ts";
import { renderCustomEmojis } from "../serializers/custom_emoji.ts";
import { instanceV1Entity, instanceV2Entity } from "../serializers/instance.ts";
import { emojisCached, localEmojis } from "../services/emojis/custom_emojis.ts";
import { instanceCached } from "../services/instance/cached.ts";
import { instanceFacts } from "../services/instance/instance.ts";
import { NODEINFO_PROFILE, nodeInfo } from "../services/instance/nodeinfo.ts";

// Mastodon's: `expires_in 5.minutes, public: true, stale_while_revalidate: 60, stale_if_error: 1.day`
// for the instance, `expires_in 30.minutes, public: true` for NodeInfo.
const INSTANCE_CACHE = "max-age=300, public, stale-while-revalidate=60, stale-if-error=86400";
const NODEINFO_CACHE = "max-age=1800, public";
// `expires_in 3.minutes, public: true` for the custom emojis.
const EMOJIS_CACHE = "max-age=180, public";

export const preparedRoutes: ReadonlyMap<string, PreparedBuilder> = new Map<string, PreparedBuilder>([
  [
    "/api/v1/instance",
    (rt) =>
      instanceCached(rt, "v1", async () => prepare(instanceV1Entity(rt, await instanceFacts(rt)), INSTANCE_CACHE)),
  ],
  [
    "/api/v2/instance",
    (rt) =>
      instanceCached(rt, "v2", async () => prepare(instanceV2Entity(rt, await instanceFacts(rt)), INSTANCE_CACHE)),
  ],
  [
    // Unlisted emojis are listed too, with visible_in_picker false, so that clients can show them in
    // statuses while leaving them out of the picker.
    "/api/v1/custom_emojis",
    (rt) =>
      emojisCached(rt, "prepared", async () =>
        prepare(renderCustomEmojis(rt.config, [...(await localEmojis(rt)).values()]), EMOJIS_CACHE),
      ),
  ],
  ...(["2.0", "2.1"] as const).map(
    (version) =>
      [
        `/nodeinfo/${version}`,
        (rt) =>
          instanceCached(rt, `nodeinfo:${version}`, async () =>
            prepare(
              await nodeInfo(rt, version),
              NODEINFO_CACHE,
              `application/json; profile="${NODEINFO_PROFILE(version)}#"`,
            ),
          ),
      ] as [string, PreparedBuilder],
  ),
]);

/** The router's answer for a prepared path (a request the fast path let through): the same bytes. */
export async function preparedResponse(c: Ctx, path: string): Promise<Response> {
  const prepared = await preparedRoutes.get(path)!(c.get("rt"));
  const fresh = matches(c.req.header("if-none-match"), prepared.etag);
  for (const [name, value] of Object.entries(fresh ? prepared.headers : prepared.full)) c.header(name, value);
  return fresh ? c.body(null, 304) : c.body(new Uint8Array(prepared.body));
}
