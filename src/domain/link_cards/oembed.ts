// A card from an oEmbed answer, as Mastodon's FetchLinkCardService makes one: version 1.0 and a
// known type; a photo needs its `url`; a video or rich embed keeps its `html` only as sanitized
// iframes (none left: no oEmbed card, the page's own tags are tried). URLs resolve against the
// endpoint's.
import type { PreviewCardType } from "../../db/schema.ts";
import { sanitizeEmbed } from "./embed.ts";
import { validUrl } from "./page.ts";

/** A card's values, as read from a page or an oEmbed answer. */
export interface CardDetails {
  type: PreviewCardType;
  title: string;
  description: string;
  imageUrl: string | null;
  imageDescription: string;
  width: number;
  height: number;
  html: string;
  providerName: string;
  providerUrl: string;
  authorName: string;
  authorUrl: string;
  embedUrl: string;
  language: string | null;
  publishedAt: Date | null;
}

/** The oEmbed endpoint a page names; over https when the page came over https, as Mastodon assumes. */
export function oEmbedEndpoint(links: Map<string, string>, pageUrl: string): string | null {
  const href = links.get("type application/json+oembed") ?? links.get("type text/json+oembed");
  const url = validUrl(href, pageUrl);
  if (!url) return null;
  const endpoint = new URL(url);
  if (new URL(pageUrl).protocol === "https:") endpoint.protocol = "https:";
  return endpoint.href;
}

const text = (v: unknown): string => (typeof v === "string" ? v : "");
const size = (v: unknown): number => {
  const n = typeof v === "number" ? v : Number.parseInt(text(v), 10);
  return Number.isInteger(n) && n > 0 && n < 100_000 ? n : 0;
};

export function cardFromOEmbed(body: unknown, endpoint: string): CardDetails | null {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return null;
  const e = body as Record<string, unknown>;
  if (String(e.version) !== "1.0") return null;
  const type = e.type;
  if (type !== "link" && type !== "photo" && type !== "video" && type !== "rich") return null;
  const card: CardDetails = {
    type,
    title: text(e.title),
    description: "",
    imageUrl: null,
    imageDescription: "",
    width: 0,
    height: 0,
    html: "",
    providerName: text(e.provider_name),
    providerUrl: validUrl(text(e.provider_url), endpoint) ?? "",
    authorName: text(e.author_name),
    authorUrl: validUrl(text(e.author_url), endpoint) ?? "",
    embedUrl: "",
    language: null,
    publishedAt: null,
  };
  const thumbnail = validUrl(text(e.thumbnail_url), endpoint);
  if (type === "link") return { ...card, imageUrl: thumbnail };
  if (type === "photo") {
    const url = validUrl(text(e.url), endpoint);
    if (!url) return null;
    return { ...card, embedUrl: url, imageUrl: url, width: size(e.width), height: size(e.height) };
  }
  const html = sanitizeEmbed(text(e.html));
  if (!html) return null;
  return { ...card, html, imageUrl: thumbnail, width: size(e.width), height: size(e.height) };
}
