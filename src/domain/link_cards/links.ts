// Which link of a status gets a preview card: the first one that is not a mention, a hashtag, the
// status itself or a page of this server, as Mastodon's FetchLinkCardService picks it (hashtags
// and mentions are known by their microformats: rel="tag", the u-url and h-card classes).
import { Parser } from "htmlparser2";

export interface LinkContext {
  /** The URLs of the accounts the status mentions. */
  mentionUrls: readonly string[];
  /** The status's own URLs (its `uri` and `url`). */
  ownUrls: readonly string[];
  /** This server's origin: its pages get no card. */
  origin: string;
}

/** A link as Addressable's normalize leaves it: http(s) only, lower-case host, no default port. */
export function normalizeLink(href: string): string | null {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return null;
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || !url.hostname) return null;
  return url.href;
}

function skipped(attributes: Record<string, string>, href: string, c: LinkContext): boolean {
  const rel = (attributes.rel ?? "").split(/\s+/);
  if (rel.includes("tag")) return true;
  if (/u-url|h-card/.test(attributes.class ?? "")) return true;
  return c.mentionUrls.includes(href);
}

/** The link of `content` (a status's HTML) to preview, normalized; null when there is none. */
export function linkToPreview(content: string, c: LinkContext): string | null {
  const own = new Set(c.ownUrls.map(normalizeLink));
  const host = new URL(c.origin).host;
  let found: string | null = null;
  const parser = new Parser({
    onopentag(name, attributes) {
      if (found !== null || name !== "a" || !attributes.href) return;
      if (skipped(attributes, attributes.href, c)) return;
      const url = normalizeLink(attributes.href);
      if (url === null || own.has(url) || new URL(url).host === host) return;
      found = url;
    },
  });
  parser.end(content);
  return found;
}
