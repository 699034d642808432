// Plain text (statuses, bios, profile field values) to the HTML Mastodon's TextFormatter makes.
// Clients style and parse this markup (`invisible`/`ellipsis` link parts, `h-card` mentions,
// `hashtag` links), so it is reproduced byte for byte.
import { isBlank, rubyStrip } from "./char_classes.ts";
import { type Entity, extractEntities, rewrite } from "./entities.ts";
import { escapeHtml } from "./html_escape.ts";
import { isLocalDomain, type MentionMatch, mentionKey } from "./mentions.ts";

export interface ResolvedMention {
  url: string;
  username: string;
  acct: string;
}

export interface RenderOptions {
  /** Mentions that resolved to accounts, keyed by lowercased "username" (local) or "username@domain". Unresolved mentions stay plain text. */
  mentions: Map<string, ResolvedMention>;
  /** URL of a hashtag's page on this server. */
  tagUrl: (name: string) => string;
  /** The server's own domain, so "@bob@ourdomain" resolves like "@bob". */
  localDomain: string;
}

interface Style {
  rel: string;
  /** Show mentions as `acct` (user@domain) rather than `username`. */
  withDomains: boolean;
}

const STATUS: Style = { rel: "nofollow noopener", withDomains: false };
// Profile fields carry rel="me" so that a linked page linking back verifies the field.
const PROFILE_FIELD: Style = { rel: "nofollow noopener me", withDomains: true };

/** Status text and bios: a <p> per paragraph (blank line), <br /> for a single line break. */
export function renderPlainText(text: string, options: RenderOptions): string {
  const stripped = rubyStrip(text.replace(/\r\n?/g, "\n"));
  if (isBlank(stripped)) return "";
  return render(stripped, options, STATUS)
    .split(/\n\n+/)
    .map((paragraph) => `<p>${paragraph.replaceAll("\n", "<br />")}</p>`)
    .join("");
}

/** A profile field value: links with rel="me", mentions with their domain, no paragraphs. */
export function renderProfileField(value: string, options: RenderOptions): string {
  const stripped = rubyStrip(value);
  if (isBlank(stripped)) return "";
  return render(stripped, options, PROFILE_FIELD);
}

function render(text: string, options: RenderOptions, style: Style): string {
  return rewrite(text, extractEntities(text), (entity) => renderEntity(entity, options, style), escapeHtml);
}

function renderEntity(entity: Entity, options: RenderOptions, style: Style): string {
  switch (entity.kind) {
    case "url":
      return entity.linkable ? renderLink(entity.url, style.rel) : escapeHtml(entity.url);
    case "hashtag":
      return `<a href="${escapeHtml(options.tagUrl(entity.name))}" class="mention hashtag" rel="tag">#<span>${escapeHtml(entity.name)}</span></a>`;
    case "mention":
      return renderMention(entity, options, style);
  }
}

const DISPLAY_PREFIX = /^(?:https?:\/\/(?:www\.)?|xmpp:)/;
const DISPLAY_LENGTH = 30;

// The scheme (and "www.") is hidden, the next 30 characters shown, and the rest hidden behind an
// ellipsis; a single leftover character is shown rather than replaced by the ellipsis.
function renderLink(url: string, rel: string): string {
  const prefix = DISPLAY_PREFIX.exec(url)?.[0] ?? "";
  const rest = Array.from(url.slice(prefix.length));
  const cut = rest.length > DISPLAY_LENGTH + 1;
  const shown = cut ? rest.slice(0, DISPLAY_LENGTH).join("") : rest.join("");
  const hidden = cut ? rest.slice(DISPLAY_LENGTH).join("") : "";
  return (
    `<a href="${escapeHtml(url)}" target="_blank" rel="${rel}" translate="no">` +
    `<span class="invisible">${escapeHtml(prefix)}</span>` +
    `<span class="${cut ? "ellipsis" : ""}">${escapeHtml(shown)}</span>` +
    `<span class="invisible">${escapeHtml(hidden)}</span></a>`
  );
}

function renderMention(mention: MentionMatch, options: RenderOptions, style: Style): string {
  const domain = isLocalDomain(mention.domain, options.localDomain) ? null : mention.domain;
  const account = options.mentions.get(mentionKey(mention.username, domain));
  if (!account) return `@${escapeHtml(mention.screenName)}`;
  const display = style.withDomains || hasNamesake(account, options.mentions) ? account.acct : account.username;
  return `<span class="h-card" translate="no"><a href="${escapeHtml(account.url)}" class="u-url mention">@<span>${escapeHtml(display)}</span></a></span>`;
}

// When two mentioned accounts share a username, both are shown with their domain.
function hasNamesake(account: ResolvedMention, mentions: Map<string, ResolvedMention>): boolean {
  const username = account.username.toLowerCase();
  const acct = account.acct.toLowerCase();
  for (const other of mentions.values()) {
    if (other.username.toLowerCase() === username && other.acct.toLowerCase() !== acct) return true;
  }
  return false;
}
