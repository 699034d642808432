// What a web page says about itself, read as Mastodon's LinkDetailsExtractor reads it: JSON-LD
// (a NewsArticle or WebPage) first, then OpenGraph, then Twitter's card tags, then the page's own
// <title> and description; a Twitter player makes the card a video. Bytes from outside: every
// value is checked for its type, URLs are resolved against the page and kept only when http(s).
import { Parser } from "htmlparser2";
import { escapeAttribute, sanitizeEmbed } from "./embed.ts";
import type { CardDetails } from "./oembed.ts";

export interface PageDetails {
  /** Meta tags' content by property and by name, the first of each kept. */
  meta: Map<string, string>;
  /** Meta tags' content by name only (`description`). */
  metaNames: Map<string, string>;
  /** `<link>` hrefs by `rel` and by `type <type>`, the first of each kept. */
  links: Map<string, string>;
  title: string | null;
  lang: string | null;
  jsonLd: string[];
}

/** The character set a page's bytes are in: the header's, else the document's, else UTF-8. */
export function pageCharset(body: Buffer, contentType: string | undefined): string {
  const fromHeader = /charset\s*=\s*["']?([\w.:-]+)/i.exec(contentType ?? "")?.[1];
  // A document declares it in its first 1024 bytes (the HTML standard's prescan).
  const head = body.subarray(0, 1024).toString("latin1");
  const fromDocument =
    /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1] ??
    /<meta[^>]+content\s*=\s*["'][^"']*charset=([\w.:-]+)/i.exec(head)?.[1];
  for (const label of [fromHeader, fromDocument]) {
    if (!label) continue;
    try {
      return new TextDecoder(label).encoding;
    } catch {
      // An unknown label: the next source decides.
    }
  }
  return "utf-8";
}

export function decodePage(body: Buffer, contentType: string | undefined): string {
  return new TextDecoder(pageCharset(body, contentType)).decode(body);
}

export function readPage(html: string): PageDetails {
  const page: PageDetails = {
    meta: new Map(),
    metaNames: new Map(),
    links: new Map(),
    title: null,
    lang: null,
    jsonLd: [],
  };
  const first = (map: Map<string, string>, key: string | undefined, value: string | undefined) => {
    if (key && value !== undefined && !map.has(key)) map.set(key, value);
  };
  let inTitle = false;
  let title = "";
  let script: string | null = null;
  const parser = new Parser(
    {
      onopentag(name, a) {
        if (name === "meta") {
          first(page.meta, a.property, a.content);
          first(page.meta, a.name, a.content);
          first(page.metaNames, a.name, a.content);
        } else if (name === "link" && a.rel) {
          const rel = a.rel.toLowerCase().trim();
          first(page.links, rel, a.href);
          if (a.type) first(page.links, `type ${a.type.toLowerCase()}`, a.href);
        } else if (name === "html" && a.lang && page.lang === null) page.lang = a.lang;
        else if (name === "title" && page.title === null) inTitle = true;
        else if (name === "script" && a.type?.toLowerCase() === "application/ld+json") script = "";
      },
      ontext(text) {
        if (inTitle) title += text;
        if (script !== null) script += text;
      },
      onclosetag(name) {
        if (name === "title" && inTitle) {
          inTitle = false;
          page.title = title;
        } else if (name === "script" && script !== null) {
          page.jsonLd.push(script);
          script = null;
        }
      },
    },
    { decodeEntities: true },
  );
  parser.end(html);
  return page;
}

const str = (v: unknown): string | null => (typeof v === "string" && v.trim() !== "" ? v : null);
const firstOf = (v: unknown): unknown => (Array.isArray(v) ? v[0] : v);
const obj = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** Some publications wrap their JSON-LD in commented-out CDATA markers. */
const CDATA_JUNK = /^\s*(\/\*\s*<!\[CDATA\[\s*\*\/|\/\/\s*<!\[CDATA\[|\/\*\s*\]\]>\s*\*\/|\/\/\s*\]\]>)\s*$/gm;
const STRUCTURED_TYPES = new Set(["NewsArticle", "WebPage"]);

/** The first JSON-LD object of a supported type; pages hold several, some of them invalid JSON. */
function structuredData(page: PageDetails): Record<string, unknown> | null {
  for (const text of page.jsonLd) {
    let data: unknown;
    try {
      data = JSON.parse(text.replace(CDATA_JUNK, ""));
    } catch {
      continue;
    }
    const found = (Array.isArray(data) ? data : [data])
      .map(obj)
      .find((o) => STRUCTURED_TYPES.has(o["@type"] as string));
    if (found) return found;
  }
  return null;
}

/** `value` resolved against `base`, when it is an http(s) URL with a host. */
export function validUrl(value: string | null | undefined, base: string): string | null {
  if (!value || value === "null") return null;
  try {
    const url = new URL(value, base);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname ? url.href : null;
  } catch {
    return null;
  }
}

const integer = (v: unknown): number => {
  const n = Number.parseInt(String(v ?? ""), 10);
  return Number.isFinite(n) && n > 0 && n < 100_000 ? n : 0;
};

const date = (v: string | null): Date | null => {
  const d = v ? new Date(v) : null;
  return d && !Number.isNaN(d.getTime()) ? d : null;
};

/** `en_US`, `en-GB`, `fr` → the language part, when it is a language code. */
function language(v: unknown, isLanguage: (code: string) => boolean): string | null {
  const code = str(v)?.split(/[_-]/)[0].toLowerCase();
  return code && isLanguage(code) ? code : null;
}

/** The card a page makes of itself; null when it has neither a title nor a player. */
export function cardFromPage(
  page: PageDetails,
  url: string,
  isLanguage: (code: string) => boolean,
): (CardDetails & { authorAccount: string | null }) | null {
  const sd = structuredData(page);
  const tag = (name: string) => str(page.meta.get(name));
  const author = obj(firstOf(sd?.author));
  const publisher = obj(firstOf(sd?.publisher));
  const image = firstOf(sd?.image);
  const player = validUrl(tag("twitter:player"), url);
  const width = integer(tag("twitter:player:width"));
  const height = integer(tag("twitter:player:height"));
  const title = (str(sd?.headline) ?? tag("og:title") ?? tag("twitter:title") ?? page.title ?? "").trim();
  const inLanguage = firstOf(sd?.inLanguage);
  const html = player
    ? sanitizeEmbed(
        `<iframe src="${escapeAttribute(player)}" width="${width}" height="${height}" allowfullscreen="true" scrolling="no" frameborder="0"></iframe>`,
      )
    : "";
  if (!title && !html) return null;
  return {
    type: player ? "video" : "link",
    title,
    description:
      str(sd?.description) ??
      tag("og:description") ??
      tag("twitter:description") ??
      str(page.metaNames.get("description")) ??
      "",
    imageUrl:
      validUrl(tag("og:image"), url) ??
      validUrl(str(obj(image).url) ?? str(image), url) ??
      validUrl(tag("twitter:image"), url),
    imageDescription: tag("og:image:alt") ?? tag("twitter:image:alt") ?? "",
    width,
    height,
    html,
    providerName: str(publisher.name) ?? tag("og:site_name") ?? "",
    providerUrl: validUrl(hostToUrl(tag("og:site")), url) ?? "",
    authorName: str(author.name) ?? tag("og:author") ?? tag("og:author:username") ?? "",
    authorUrl: validUrl(str(author.url), url) ?? "",
    embedUrl: validUrl(tag("twitter:player:stream"), url) ?? "",
    language:
      language(obj(inLanguage).alternateName ?? obj(inLanguage).name ?? inLanguage, isLanguage) ??
      language(tag("og:locale"), isLanguage) ??
      language(page.lang, isLanguage),
    publishedAt: date(str(sd?.datePublished) ?? tag("article:published_time")),
    authorAccount: tag("fediverse:creator"),
  };
}

function hostToUrl(value: string | null): string | null {
  if (!value) return null;
  return /^https?:\/\//.test(value) ? value : `http://${value}`;
}
