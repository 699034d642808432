// HTML for the public profile and post pages, rendered from the same entities the API answers with.
// Content, bios and field values are sanitized HTML already and go in raw; everything else (names,
// content warnings, alt text, URLs) is escaped by the template. Links from remote servers are kept
// only when they are http(s).
import { html, raw } from "hono/html";
import { htmlToPlainText } from "../../domain/text/plain_text.ts";
import type { AccountEntity } from "../../serializers/account.ts";
import type { StatusEntity } from "../../serializers/status.ts";
import type { Language } from "../i18n.ts";
import type { Html } from "../layout.ts";

/** The parts of a Status entity the pages show. */
interface ShownStatus {
  id: string;
  created_at: string;
  edited_at: string | null;
  url: string | null;
  uri: string;
  sensitive: boolean;
  spoiler_text: string;
  content: string;
  language: string | null;
  replies_count: number;
  reblogs_count: number;
  favourites_count: number;
  account: AccountEntity;
  reblog: StatusEntity | null;
  media_attachments: {
    type: string;
    url: string | null;
    preview_url: string | null;
    remote_url: string | null;
    description: string | null;
  }[];
  poll: { expired: boolean; options: { title: string; votes_count: number | null }[] } | null;
  card: {
    url: string;
    title: string;
    description: string;
    provider_name: string;
    image: string | null;
    image_description: string;
  } | null;
  quote: { state: string; quoted_status?: StatusEntity | null } | null;
}

export const PAGE_STYLE = html`<style>
  .profile img.avatar { width: 5rem; height: 5rem; border-radius: .6rem; }
  .profile .acct, .status .acct { opacity: .75; }
  .counts { display: flex; gap: 1.25rem; flex-wrap: wrap; }
  dl.fields { display: grid; grid-template-columns: minmax(6rem, auto) 1fr; gap: .25rem .75rem; }
  dl.fields dt { font-weight: 600; }
  dl.fields dd { margin: 0; overflow-wrap: anywhere; }
  article.status { border-top: 1px solid #8884; padding: .75rem 0; overflow-wrap: anywhere; }
  article.status.focus { font-size: 1.1rem; }
  article.status header { display: flex; gap: .5rem; align-items: center; }
  article.status header img { width: 2.5rem; height: 2.5rem; border-radius: .4rem; }
  article.status .media img { max-width: 100%; border-radius: .4rem; }
  article.status footer { display: flex; gap: 1rem; flex-wrap: wrap; }
  a.card { display: flex; gap: .75rem; border: 1px solid #8886; border-radius: .4rem; padding: .5rem;
    margin: .5rem 0; color: inherit; text-decoration: none; }
  a.card img { width: 6rem; height: 6rem; object-fit: cover; border-radius: .3rem; }
  a.card p { margin: .25rem 0 0; }
  nav.pages { display: flex; justify-content: space-between; margin-top: 1rem; }
</style>`;

/** `url` when it is an http(s) URL or a path of ours, else nothing a browser would follow. */
export function safeUrl(url: string | null | undefined): string {
  if (!url) return "#";
  if (url.startsWith("/") && !url.startsWith("//")) return url;
  return /^https?:\/\//i.test(url) ? url : "#";
}

function displayName(a: AccountEntity): string {
  return a.display_name.trim() || a.username;
}

function when(iso: string, lang: Language): Html {
  const text = new Intl.DateTimeFormat(lang.locale, {
    dateStyle: "medium",
    timeStyle: "short",
    timeZone: "UTC",
  }).format(new Date(iso));
  return html`<time datetime="${iso}">${text}</time>`;
}

export function renderProfile(a: AccountEntity, lang: Language): Html {
  const t = lang.t.publicPages;
  const joined = new Intl.DateTimeFormat(lang.locale, { dateStyle: "long", timeZone: "UTC" }).format(
    new Date(a.created_at),
  );
  return html`<section class="profile h-card">
<img class="avatar u-photo" src="${safeUrl(a.avatar)}" alt="">
<h1 class="p-name">${displayName(a)}</h1>
<p class="acct">@${a.acct}</p>
<div class="note p-note">${raw(a.note)}</div>
${
  a.fields.length > 0
    ? html`<dl class="fields">${a.fields.map((f) => html`<dt>${f.name}</dt><dd>${raw(f.value)}</dd>`)}</dl>`
    : ""
}
<p class="counts muted">
<span>${t.posts}: <strong>${a.statuses_count}</strong></span>
<span>${t.following}: <strong>${a.following_count}</strong></span>
<span>${t.followers}: <strong>${a.followers_count}</strong></span>
<span>${t.joined}: ${joined}</span>
</p>
</section>`;
}

function renderMedia(media: ShownStatus["media_attachments"], sensitive: boolean, lang: Language): Html {
  if (media.length === 0) return html``;
  const items = html`<div class="media">${media.map((m) => {
    const full = safeUrl(m.url ?? m.remote_url);
    const alt = m.description ?? "";
    return m.type === "image" || m.type === "gifv"
      ? html`<a href="${full}"><img src="${safeUrl(m.preview_url ?? m.url ?? m.remote_url)}" alt="${alt}" loading="lazy"></a>`
      : html`<p><a href="${full}">${alt || m.type}</a></p>`;
  })}</div>`;
  return sensitive ? html`<details><summary>${lang.t.publicPages.sensitive}</summary>${items}</details>` : items;
}

function renderPoll(poll: ShownStatus["poll"], lang: Language): Html {
  if (!poll) return html``;
  const t = lang.t.publicPages;
  return html`<ul class="poll">${poll.options.map(
    (o) =>
      html`<li>${o.title}${o.votes_count === null ? "" : html` <span class="muted">(${t.votes(o.votes_count)})</span>`}</li>`,
  )}</ul>${poll.expired ? html`<p class="muted">${t.pollClosed}</p>` : ""}`;
}

/** The preview card of a post's link, as a link to it. */
function renderCard(card: ShownStatus["card"]): Html {
  if (!card) return html``;
  const site = card.provider_name || new URL(card.url).hostname;
  return html`<a class="card" href="${safeUrl(card.url)}" rel="nofollow noopener">
${card.image ? html`<img src="${safeUrl(card.image)}" alt="${card.image_description}" loading="lazy">` : ""}
<span><span class="muted">${site}</span><br><strong>${card.title}</strong>${card.description ? html`<p>${card.description}</p>` : ""}</span>
</a>`;
}

/** The post a post quotes, within it; a line saying so when it may not be shown. */
function renderQuote(quote: ShownStatus["quote"], lang: Language): Html {
  // A quote within a quoted post (a ShallowQuote) is not shown.
  if (!quote || quote.quoted_status === undefined) return html``;
  if (quote.quoted_status)
    return html`<blockquote class="quote">${renderStatus(quote.quoted_status, lang)}</blockquote>`;
  return html`<p class="muted quote">${lang.t.publicPages.quoteUnavailable}</p>`;
}

/** One post; a boost shows the boosted post with a line naming who boosted it. */
export function renderStatus(
  entity: StatusEntity,
  lang: Language,
  o: { focus?: boolean; pinned?: boolean } = {},
): Html {
  const t = lang.t.publicPages;
  const s = (entity.reblog ?? entity) as unknown as ShownStatus;
  const booster = entity.reblog ? (entity.account as AccountEntity) : null;
  const body = html`<div class="content"${s.language ? html` lang="${s.language}"` : ""}>${raw(s.content)}</div>
${renderPoll(s.poll, lang)}
${renderMedia(s.media_attachments, s.sensitive, lang)}
${s.media_attachments.length === 0 ? renderCard(s.card) : ""}
${renderQuote(s.quote, lang)}`;
  return html`<article class="status h-entry${o.focus ? " focus" : ""}" id="status-${s.id}">
${o.pinned ? html`<p class="muted">${t.pinned}</p>` : ""}
${booster ? html`<p class="muted">${t.boosted(displayName(booster))}</p>` : ""}
<header>
<img src="${safeUrl(s.account.avatar)}" alt="">
<span><a class="p-author h-card" href="${safeUrl(s.account.url)}"><strong>${displayName(s.account)}</strong></a>
<span class="acct">@${s.account.acct}</span></span>
</header>
${s.spoiler_text ? html`<details><summary>${s.spoiler_text}</summary>${body}</details>` : body}
<footer class="muted">
<a class="u-url" href="${safeUrl(s.url ?? s.uri)}">${when(s.created_at, lang)}</a>
${s.edited_at ? html`<span>${t.edited}</span>` : ""}
<span>${t.replies}: ${s.replies_count}</span><span>${t.boosts}: ${s.reblogs_count}</span><span>${t.favourites}: ${s.favourites_count}</span>
</footer>
</article>`;
}

/** The text of a post's or bio's HTML on one line. */
export function plainText(content: string): string {
  return htmlToPlainText(content).replace(/\s+/g, " ").trim();
}

/** The plain text of a post (its content warning, when it has one), shortened, for the page's title. */
export function excerpt(entity: StatusEntity, max = 60): string {
  const s = entity as unknown as ShownStatus;
  const text = s.spoiler_text.trim() || plainText(s.content);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** What another site shows of a link to a page (OpenGraph, and Twitter's cards). */
export interface LinkPreview {
  title: string;
  description: string;
  /** An absolute URL. */
  image: string | null;
  url: string;
  type: "profile" | "article" | "website";
  /** The image is a post's picture, worth a large card, rather than an avatar. */
  largeImage?: boolean;
}

export function linkPreview(p: LinkPreview, siteTitle: string): Html {
  return html`<meta property="og:site_name" content="${siteTitle}">
<meta property="og:type" content="${p.type}">
<meta property="og:title" content="${p.title}">
<meta property="og:description" content="${p.description}">
<meta property="og:url" content="${p.url}">
${p.image ? html`<meta property="og:image" content="${p.image}">` : ""}
<meta name="description" content="${p.description}">
<meta name="twitter:card" content="${p.largeImage ? "summary_large_image" : "summary"}">`;
}

/** `url` when it is an absolute http(s) URL, as previews need. */
const absoluteUrl = (url: string | null | undefined): string | null => (url && /^https?:\/\//i.test(url) ? url : null);

/** A profile's preview: its name, bio and avatar. */
export function profilePreview(a: AccountEntity, domain: string): LinkPreview {
  return {
    title: `${displayName(a)} (@${a.acct.includes("@") ? a.acct : `${a.acct}@${domain}`})`,
    description: plainText(a.note),
    image: absoluteUrl(a.avatar),
    url: safeUrl(a.url),
    type: "profile",
  };
}

/** A post's preview: its author, its text (or its content warning alone) and its first picture, else the author's avatar. */
export function statusPreview(entity: StatusEntity, domain: string, lang: Language): LinkPreview {
  const s = entity as unknown as ShownStatus;
  // Sensitive media stay out of other sites' cards, as the content behind a warning does.
  const visual = s.sensitive ? undefined : s.media_attachments.find((m) => ["image", "gifv", "video"].includes(m.type));
  const picture = absoluteUrl(visual?.type === "image" ? (visual.url ?? visual.preview_url) : visual?.preview_url);
  const warning = s.spoiler_text.trim();
  const author = profilePreview(s.account, domain);
  return {
    ...author,
    description: warning ? lang.t.publicPages.contentWarning(warning) : plainText(s.content),
    image: picture ?? author.image,
    url: safeUrl(s.url ?? s.uri),
    type: "article",
    largeImage: picture !== null,
  };
}

/** A page of posts with links to newer and older ones (`?min_id=`, `?max_id=`); pinned posts head the first. */
export function renderFeed(
  statuses: StatusEntity[],
  lang: Language,
  o: { base: string; first: boolean; prev: string | null; next: string | null; pinned?: StatusEntity[] },
): Html {
  const t = lang.t.publicPages;
  const pinned = o.pinned ?? [];
  return html`<section class="h-feed">
${pinned.map((s) => renderStatus(s, lang, { pinned: true }))}
${statuses.map((s) => renderStatus(s, lang))}
${pinned.length + statuses.length === 0 ? html`<p class="muted">${t.noPosts}</p>` : ""}
</section>
<nav class="pages">
${!o.first && o.prev ? html`<a rel="prev" href="${o.base}?min_id=${o.prev}">${t.newer}</a>` : html`<span></span>`}
${o.next ? html`<a rel="next" href="${o.base}?max_id=${o.next}">${t.older}</a>` : ""}
</nav>`;
}
