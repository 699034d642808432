// HTML for the public profile and post pages, rendered from the same entities the API answers with.
// Content, bios and field values are sanitized HTML already and go in raw; everything else (names,
// content warnings, alt text, URLs) is escaped by the template. Links from remote servers are kept
// only when they are http(s).
import { html, raw } from "hono/html";
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
  quote: { state: string; quoted_status?: StatusEntity | null } | null;
}

export const PAGE_STYLE = html`<style>
  main { max-width: 40rem; }
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
${
  o.focus
    ? html`<span>${t.replies}: ${s.replies_count}</span><span>${t.boosts}: ${s.reblogs_count}</span><span>${t.favourites}: ${s.favourites_count}</span>`
    : ""
}
</footer>
</article>`;
}

/** The plain text of a post's content, shortened, for the page's title. */
export function excerpt(entity: StatusEntity, max = 60): string {
  const s = entity as unknown as ShownStatus;
  const text = (s.spoiler_text || s.content.replace(/<[^>]*>/g, " "))
    .replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" })[e]!)
    .replace(/\s+/g, " ")
    .trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
