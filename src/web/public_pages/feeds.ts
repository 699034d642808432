// The public pages of timelines, for browsers: `/tags/:name` (the hashtag's public posts, where
// every hashtag of a post links) and `/public/local` (this server's latest public posts). They show
// what the hashtag and public timelines show a reader without an account, from the same services,
// and only when those timelines are open to one (PUBLIC_PREVIEW, and neither secure mode nor limited
// federation mode); otherwise a members-only page, as the API answers 401 or 422.
import { html } from "hono/html";
import type { PageResult } from "../../db/paginate.ts";
import { anonymousReadsTimelines } from "../../domain/anonymous_access.ts";
import { ApiError } from "../../domain/errors.ts";
import { normalizeHashtag } from "../../domain/text/index.ts";
import { type Ctx, router } from "../../http/hono.ts";
import { publicTimeline, tagTimeline } from "../../services/feeds/timelines.ts";
import { page } from "../layout.ts";
import { renderFeed } from "./render.ts";
import { ANONYMOUS, errorPage, head, languageOf, pageAsked, render } from "./routes.ts";

export const publicFeeds = router();

/** A page of a timeline: a heading, a line saying what it holds, the posts and links to more. */
async function feedPage(
  c: Ctx,
  o: {
    title: string;
    lead: string;
    base: string;
    read: (asked: ReturnType<typeof pageAsked>) => Promise<PageResult<string>>;
  },
) {
  const rt = c.get("rt");
  const lang = languageOf(c);
  if (!anonymousReadsTimelines(rt.config)) return errorPage(c, 401, lang);
  const asked = pageAsked(c);
  let result: PageResult<string>;
  try {
    result = await o.read(asked);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return errorPage(c, 404, lang);
    throw error;
  }
  const statuses = await render(rt, result.items, "public");
  const first = !asked.maxId && !asked.minId;
  const body = html`<h1>${o.title}</h1>
<p class="muted">${o.lead}</p>
${renderFeed(statuses, lang, { base: o.base, first, prev: result.prev, next: result.next })}`;
  const preview = {
    title: o.title,
    description: o.lead,
    image: null,
    url: `${rt.config.origin}${o.base}`,
    type: "website" as const,
  };
  return c.html(page(o.title, body, rt.config.site.title, { locale: lang.locale, head: head(c, { preview }) }));
}

publicFeeds.get("/tags/:name", (c) => {
  // Shown as linked (`#Heron`); the timeline finds it by its normalized form, and a name that has
  // none is not found.
  const name = c.req.param("name").replace(/^#/, "");
  const lang = languageOf(c);
  if (!normalizeHashtag(name)) return errorPage(c, 404, lang);
  return feedPage(c, {
    title: `#${name}`,
    lead: lang.t.publicPages.tagged(name),
    base: `/tags/${encodeURIComponent(name)}`,
    read: (asked) =>
      tagTimeline(
        c.get("rt"),
        ANONYMOUS,
        { tag: name, any: [], all: [], none: [], local: false, remote: false, onlyMedia: false },
        asked,
      ),
  });
});

publicFeeds.get("/public/local", (c) => {
  const t = languageOf(c).t.publicPages;
  return feedPage(c, {
    title: t.latest,
    lead: t.latestLead,
    base: "/public/local",
    read: (asked) => publicTimeline(c.get("rt"), ANONYMOUS, { local: true, remote: false, onlyMedia: false }, asked),
  });
});
