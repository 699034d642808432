// The public pages of local accounts and their posts, for browsers: `/@username` (the profile and
// its public posts, paginated by `max_id`/`min_id`) and `/@username/:id` (a post in its thread).
// They show what an anonymous reader may see, through the same read services as the API, and link
// to the ActivityPub representation of the same thing.
import { html } from "hono/html";
import { ApiError } from "../../domain/errors.ts";
import { isId } from "../../domain/ids.ts";
import { urls } from "../../domain/urls.ts";
import { type Ctx, router } from "../../http/hono.ts";
import type { Runtime } from "../../runtime.ts";
import { type AccountEntity, renderAccountView } from "../../serializers/account.ts";
import { renderStatuses, type StatusEntity } from "../../serializers/status.ts";
import { isLocalDomain, lookupAccount } from "../../services/accounts/accounts.ts";
import { loadAccountView } from "../../services/accounts/views.ts";
import { embeddedStatus } from "../../services/statuses/oembed.ts";
import { accountStatuses, pinnedStatuses, threadContext } from "../../services/statuses/read.ts";
import { loadStatusViews } from "../../services/statuses/views.ts";
import { loadStatusRows } from "../../services/visibility/load.ts";
import { type Language, pickLanguage } from "../i18n.ts";
import { type Html, page } from "../layout.ts";
import {
  excerpt,
  type LinkPreview,
  linkPreview,
  PAGE_STYLE,
  profilePreview,
  renderFeed,
  renderProfile,
  renderStatus,
  safeUrl,
  statusPreview,
} from "./render.ts";

export const publicPages = router();

// In limited federation mode the server shows nothing to strangers, as its API does.
publicPages.use("/:handle{@[^/]+}/*", async (c, next) => {
  if (c.get("rt").config.limitedFederation) return errorPage(c, 401, languageOf(c));
  await next();
});

export const PAGE_SIZE = 20;
export const ANONYMOUS = null;

export const languageOf = (c: Ctx) => pickLanguage(c.req.query("lang"), c.req.header("accept-language"));

/** The head of a public page: its style, its ActivityPub representation, and its preview elsewhere. */
export function head(
  c: Ctx,
  o: { activityUrl?: string; noindex?: boolean; preview?: LinkPreview; oembed?: string } = {},
): Html {
  return html`${PAGE_STYLE}
${o.activityUrl ? html`<link rel="alternate" type="application/activity+json" href="${o.activityUrl}">` : ""}
${o.oembed ? html`<link rel="alternate" type="application/json+oembed" href="${o.oembed}">` : ""}
${o.preview ? linkPreview(o.preview, c.get("rt").config.site.title) : ""}
${o.noindex ? html`<meta name="robots" content="noindex, noarchive">` : ""}`;
}

/** The cursors of a page of posts, from `max_id` and `min_id`. */
export function pageAsked(c: Ctx) {
  const cursor = (name: string) => {
    const v = c.req.query(name);
    return isId(v) ? v : null;
  };
  return { maxId: cursor("max_id"), minId: cursor("min_id"), sinceId: null, limit: PAGE_SIZE };
}

export function errorPage(c: Ctx, status: 401 | 404 | 410, lang: Language) {
  const t = lang.t.publicPages;
  const [title, text] = {
    401: [t.membersOnlyTitle, t.membersOnly],
    404: [t.notFoundTitle, t.notFound],
    410: [t.goneTitle, t.gone],
  }[status];
  const site = c.get("rt").config.site.title;
  return c.html(page(title, html`<h1>${title}</h1><p>${text}</p>`, site, { locale: lang.locale }), status);
}

/** The local account named by `@username` (or `@username@our.domain`), or the status to answer. */
async function localAccount(rt: Runtime, handle: string): Promise<{ id: string } | 404 | 410> {
  const [username = "", domain] = handle.slice(1).split("@");
  if (!username || !isLocalDomain(rt, domain)) return 404;
  try {
    return await lookupAccount(rt, username);
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 410)) return error.status;
    throw error;
  }
}

export async function render(
  rt: Runtime,
  ids: string[],
  context: "account" | "thread" | "public",
): Promise<StatusEntity[]> {
  return renderStatuses(rt, await loadStatusViews(rt, ANONYMOUS, ids, { context }));
}

publicPages.get("/:handle{@[^/]+}", async (c) => {
  const rt = c.get("rt");
  const lang = languageOf(c);
  const found = await localAccount(rt, c.req.param("handle"));
  if (typeof found === "number") return errorPage(c, found, lang);
  const account = renderAccountView(rt, (await loadAccountView(rt, found.id))!);
  const asked = pageAsked(c);
  const first = !asked.maxId && !asked.minId;
  const filters = { excludeReblogs: false, excludeReplies: true, onlyMedia: false, tagged: null };
  const result = await accountStatuses(rt, ANONYMOUS, found.id, filters, asked);
  const pinned = first ? await render(rt, await pinnedStatuses(rt, ANONYMOUS, found.id), "account") : [];
  const statuses = await render(rt, result.items, "account");
  const body = html`${renderProfile(account, lang)}
${renderFeed(statuses, lang, { base: `/@${account.username}`, first, prev: result.prev, next: result.next, pinned })}`;
  const title = `${account.display_name.trim() || account.username} (@${account.acct})`;
  const preview = profilePreview(account, rt.config.localDomain);
  return c.html(
    page(title, body, rt.config.site.title, {
      locale: lang.locale,
      head: head(c, { activityUrl: account.uri, noindex: account.noindex === true, preview }),
    }),
  );
});

publicPages.get("/:handle{@[^/]+}/:id", async (c) => {
  const rt = c.get("rt");
  const lang = languageOf(c);
  const found = await localAccount(rt, c.req.param("handle"));
  if (typeof found === "number") return errorPage(c, found, lang);
  const id = c.req.param("id");
  const row = isId(id) ? (await loadStatusRows(rt.db, [id])).get(id) : undefined;
  if (!row || row.account_id !== found.id) return errorPage(c, 404, lang);
  // A boost has no page of its own: its link leads to the boosted post, as on Mastodon.
  if (row.reblog_of_id !== null) {
    const [boost] = await render(rt, [row.id], "thread");
    const original = boost?.reblog as { url?: string; uri?: string } | null | undefined;
    if (!original) return errorPage(c, 404, lang);
    return c.redirect(safeUrl(original.url ?? original.uri), 302);
  }
  // Deleted, private and direct posts, and those of suspended authors, are not found.
  const thread = await threadContext(rt, ANONYMOUS, row.id).catch((error) => {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  });
  if (!thread) return errorPage(c, 404, lang);
  const [status] = await render(rt, [row.id], "thread");
  const ancestors = await render(rt, thread.ancestors, "thread");
  const descendants = await render(rt, thread.descendants, "thread");
  const account = status.account as AccountEntity;
  const body = html`${ancestors.map((s) => renderStatus(s, lang))}
${renderStatus(status, lang, { focus: true })}
${descendants.map((s) => renderStatus(s, lang))}`;
  // As Mastodon titles a post: its author, and its text (or content warning) in quotes.
  const title = `${account.display_name.trim() || account.username}: "${excerpt(status)}"`;
  const preview = statusPreview(status, rt.config.localDomain, lang);
  return c.html(
    page(title, body, rt.config.site.title, {
      locale: lang.locale,
      head: head(c, {
        activityUrl: status.uri as string,
        noindex: account.noindex === true,
        preview,
        oembed: urls(rt.config).oembedUrl(urls(rt.config).statusUrl(account.username, status.id)),
      }),
    }),
  );
});

// The post alone, for another site's iframe (the `html` of its oEmbed document): the same read as
// the post's page, without the thread. Public pages send no frame restrictions.
publicPages.get("/:handle{@[^/]+}/:id/embed", async (c) => {
  const rt = c.get("rt");
  const lang = languageOf(c);
  const found = await localAccount(rt, c.req.param("handle"));
  if (typeof found === "number") return errorPage(c, found, lang);
  const username = c.req.param("handle").slice(1).split("@")[0];
  const pageUrl = urls(rt.config).statusUrl(username, c.req.param("id"));
  const embedded = await embeddedStatus(rt, pageUrl).catch((error) => {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  });
  if (!embedded) return errorPage(c, 404, lang);
  const [status] = await render(rt, [embedded.id], "thread");
  if (!status) return errorPage(c, 404, lang);
  const account = status.account as { display_name: string; username: string; noindex?: boolean };
  const title = `${account.display_name.trim() || account.username}: "${excerpt(status)}"`;
  return c.html(
    page(title, renderStatus(status, lang, { focus: true }), rt.config.site.title, {
      locale: lang.locale,
      head: head(c, { activityUrl: status.uri as string, noindex: account.noindex === true }),
    }),
  );
});

// The ActivityPub ids of accounts and statuses, opened in a browser, lead to their pages (as on
// Mastodon). Servers asking for ActivityStreams are answered before these routes; what reaches
// them with such an Accept was not found.
const wantsActivityStreams = (c: Ctx) => /application\/(?:activity\+json|ld\+json)/.test(c.req.header("accept") ?? "");
publicPages.get("/users/:username", (c) =>
  wantsActivityStreams(c) ? c.notFound() : c.redirect(`/@${encodeURIComponent(c.req.param("username"))}`, 302),
);
publicPages.get("/users/:username/statuses/:id", (c) =>
  wantsActivityStreams(c)
    ? c.notFound()
    : c.redirect(`/@${encodeURIComponent(c.req.param("username"))}/${encodeURIComponent(c.req.param("id"))}`, 302),
);
