import { z } from "zod";
import { ApiError, badRequest } from "../../domain/errors.ts";
import { type Ctx, params, router, sendJson } from "../../http/hono.ts";
import { parse, pathId, zFlag, zStrings, zText } from "../../http/validate.ts";
import { statusesJson } from "../../serializers/status.ts";
import {
  type FeedPage,
  homeTimeline,
  linkTimeline,
  listTimeline,
  publicTimeline,
  tagTimeline,
} from "../../services/feeds/timelines.ts";
import { loadStatusViews } from "../../services/statuses/views.ts";
import { trendableCard } from "../../services/trends/links.ts";
import { currentUser, requireUser, tokenIfGiven, viewerId } from "../auth.ts";
import { pageParams, setLinkHeader } from "../pagination.ts";

export const timelines = router();

timelines.get("/api/v1/timelines/home", requireUser("read:statuses"), async (c) => {
  const viewer = currentUser(c).accountId;
  return feedResponse(c, viewer, await homeTimeline(c.get("rt"), viewer, pageParams(await params(c))));
});

timelines.get("/api/v1/timelines/list/:list_id", requireUser("read:lists"), async (c) => {
  const viewer = currentUser(c).accountId;
  const result = await listTimeline(c.get("rt"), viewer, pathId(c.req.param("list_id")), pageParams(await params(c)));
  return feedResponse(c, viewer, result);
});

/** A page of a home or list feed, with the live state read along with it where there is one. */
async function feedResponse(c: Ctx, viewer: string, page: FeedPage) {
  setLinkHeader(c, c.get("rt").config.origin, page);
  const views = await loadStatusViews(c.get("rt"), viewer, page.items, { context: "home", live: page.live });
  return sendJson(c, statusesJson(c.get("rt"), views));
}

const flag = zFlag();
const publicSchema = z.object({
  local: flag,
  remote: flag,
  only_media: flag,
  any: zStrings(),
  all: zStrings(),
  none: zStrings(),
});

/** Without public preview, only signed-in users read the public timelines (Mastodon's answer otherwise). */
function publicViewer(c: Ctx): string | null {
  const viewer = viewerId(c);
  if (!viewer && !c.get("rt").config.publicPreview)
    throw new ApiError(422, "This method requires an authenticated user");
  return viewer;
}

timelines.get("/api/v1/timelines/public", tokenIfGiven("read:statuses"), async (c) => {
  const viewer = publicViewer(c);
  const all = await params(c);
  const p = parse(publicSchema, all);
  const result = await publicTimeline(
    c.get("rt"),
    viewer,
    { local: p.local, remote: p.remote, onlyMedia: p.only_media },
    pageParams(all),
  );
  setLinkHeader(c, c.get("rt").config.origin, result);
  return sendJson(
    c,
    statusesJson(c.get("rt"), await loadStatusViews(c.get("rt"), viewer, result.items, { context: "public" })),
  );
});

timelines.get("/api/v1/timelines/tag/:hashtag", tokenIfGiven("read:statuses"), async (c) => {
  const viewer = publicViewer(c);
  const all = await params(c);
  const p = parse(publicSchema, all);
  const result = await tagTimeline(
    c.get("rt"),
    viewer,
    {
      tag: c.req.param("hashtag"),
      any: p.any ?? [],
      all: p.all ?? [],
      none: p.none ?? [],
      local: p.local,
      remote: p.remote,
      onlyMedia: p.only_media,
    },
    pageParams(all),
  );
  setLinkHeader(c, c.get("rt").config.origin, result);
  return sendJson(
    c,
    statusesJson(c.get("rt"), await loadStatusViews(c.get("rt"), viewer, result.items, { context: "public" })),
  );
});

// The statuses sharing a link that trends (Mastodon answers any other link with 404).
timelines.get("/api/v1/timelines/link", tokenIfGiven("read:statuses"), async (c) => {
  const viewer = publicViewer(c);
  const all = await params(c);
  const p = parse(publicSchema.extend({ url: zText() }), all);
  if (!p.url) throw badRequest("param is missing or the value is empty: url");
  const card = await trendableCard(c.get("rt"), p.url);
  const result = await linkTimeline(
    c.get("rt"),
    viewer,
    { cardId: card.id, local: p.local, remote: p.remote, onlyMedia: p.only_media },
    pageParams(all),
  );
  setLinkHeader(c, c.get("rt").config.origin, result);
  return sendJson(
    c,
    statusesJson(c.get("rt"), await loadStatusViews(c.get("rt"), viewer, result.items, { context: "public" })),
  );
});
