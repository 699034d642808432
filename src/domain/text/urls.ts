// URL recognition as Mastodon does it: the twitter-text Extractor's `valid_url` pattern with the
// overrides Mastodon applies in config/initializers/twitter_regex.rb (any non-space path
// characters, Unicode query characters, the dat/dweb/ipfs/ipns/ssb/gopher/gemini schemes), plus the
// xmpp: and magnet: URIs of Mastodon's Extractor. Only URLs written with a scheme become links.
//
// Mastodon's pattern makes the scheme optional and then discards the matches without one. Here the
// scheme is required: the optional scheme makes the scan quadratic on long runs of domain
// characters ("ab-ab-ab-…", a cheap denial of service), and the only difference it makes is that a
// scheme-less URL can swallow a link glued to it ("example.com?q=https://a.org" links nothing in
// Mastodon and "https://a.org" here).
//
// The patterns are written here rather than taken from the `twitter-text` npm package: its build
// loads core-js 2 polyfills that patch globals such as Function.prototype.toString, and Mastodon
// replaces most of its URL pattern anyway. The list of top-level domains, the part that changes,
// comes from the maintained `tlds` package.
import { domainToASCII } from "node:url";
import tlds from "tlds" with { type: "json" };
import { LATIN_ACCENTS } from "./char_classes.ts";

export interface UrlMatch {
  url: string;
  start: number;
  end: number;
  /**
   * Whether Mastodon makes it a link: a host with a backslash is recognised (and counted) as a
   * URL but rendered as text, because Addressable refuses to parse it.
   */
  linkable: boolean;
}

const UNICODE_SPACES = "\\t-\\r \\u0085\\u00A0\\u1680\\u180E\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000";
const DIRECTIONAL_MARKS = "\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069";
const NON_CHARACTERS = "\\uFFFE\\uFEFF\\uFFFF";
const ASCII_PUNCTUATION = "!\"#$%&'()*+,\\-./:;<=>?@\\[\\]^_`{|}~";

// A URL starts at the beginning of the text or after anything but a letter, digit, @, $ or #.
const PRECEDING = `(?:[^A-Z0-9@＠$#＃${NON_CHARACTERS}]|[${DIRECTIONAL_MARKS}]|^)`;

const DOMAIN_CHAR = `[^${DIRECTIONAL_MARKS}${ASCII_PUNCTUATION}\\x00-\\x1F\\x7F${NON_CHARACTERS}${UNICODE_SPACES}]`;
const SUBDOMAIN = `(?:(?:${DOMAIN_CHAR}(?:[_\\-]|${DOMAIN_CHAR})*)?${DOMAIN_CHAR}\\.)`;
const DOMAIN_NAME = `(?:(?:${DOMAIN_CHAR}(?:-|${DOMAIN_CHAR})*)?${DOMAIN_CHAR}\\.)`;
// twitter-text's list also carries the special-use .onion, which Mastodon links (onion services).
const TOP_LEVEL_DOMAINS = [...new Set([...tlds, "onion"])].sort((a, b) => b.length - a.length).join("|");
const TLD = `(?:(?:${TOP_LEVEL_DOMAINS})(?=[^0-9a-z@+\\-]|$))`;
const PUNYCODE_TLD = "(?:xn--[0-9a-z]+)";
const DOMAIN = `(?:${SUBDOMAIN}*${DOMAIN_NAME}(?:${TLD}|${PUNYCODE_TLD}))`;

const PATH_CHAR = "[^\\p{White_Space}<>()?]";
const BALANCED_PARENS = `\\((?:${PATH_CHAR}+|(?:${PATH_CHAR}*\\(${PATH_CHAR}+\\)${PATH_CHAR}*))\\)`;
// Mastodon redefines the ending characters before it redefines the balanced parentheses, so a
// parenthesised ending still uses twitter-text's narrower path characters.
const TWITTER_PATH_CHAR = `[a-z\\p{Script=Cyrillic}0-9!*';:=+,.$/%#\\[\\]\\p{Pd}_~&|@${LATIN_ACCENTS}]`;
const TWITTER_BALANCED_PARENS = `\\((?:${TWITTER_PATH_CHAR}+|(?:${TWITTER_PATH_CHAR}*\\(${TWITTER_PATH_CHAR}+\\)${TWITTER_PATH_CHAR}*))\\)`;
const PATH_ENDING = `(?:[^\\p{White_Space}()?!*"'「」<>;:=,.$%\\[\\]~&|@]|${TWITTER_BALANCED_PARENS})`;
const PATH = `(?:(?:${PATH_CHAR}*(?:${BALANCED_PARENS}${PATH_CHAR}*)*${PATH_ENDING})|(?:${PATH_CHAR}+/))`;

// RFC 3987's ucschar and iprivate: the non-ASCII characters an IRI query may hold.
const IRI_CHARS = [
  "\\u00A0-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFEF\\uE000-\\uF8FF",
  ...Array.from({ length: 16 }, (_, i) => {
    const plane = (i + 1).toString(16).toUpperCase();
    return i + 1 === 14 ? "\\u{E1000}-\\u{EFFFD}" : `\\u{${plane}0000}-\\u{${plane}FFFD}`;
  }),
].join("");
const QUERY_CHAR = `[a-z0-9!?*'();:&=+$/%#\\[\\]\\-_.,~|@^${IRI_CHARS}]`;
const QUERY_ENDING = `[a-z0-9_&=#/\\-${IRI_CHARS}]`;
const QUERY = `\\?${QUERY_CHAR}*${QUERY_ENDING}`;

const SCHEMES = "(?:https?|dat|dweb|ipfs|ipns|ssb|gopher|gemini)://";
const VALID_URL = new RegExp(
  `(?<before>${PRECEDING})(?<url>${SCHEMES}(?<domain>${DOMAIN})(?::[0-9]+)?(?:/${PATH}*)?(?:${QUERY})?)`,
  "giu",
);

const UNRESERVED = "[a-z\\p{Script=Cyrillic}0-9\\p{Pd}._~]";
const PERCENT_ENCODED = "(?:%[0-9a-f]{2})";
const NODE_ID = `(?:${UNRESERVED}|${PERCENT_ENCODED}|[!$()*+,;=])`;
const RESOURCE_ID = `(?:${UNRESERVED}|${PERCENT_ENCODED}|[!$&'()*+,;=])`;
const EXTENDED_SCHEME = /xmpp:|magnet:/i;
const EXTENDED_URI = new RegExp(
  `(?<before>${PRECEDING})(?<url>(?:xmpp:(?://${NODE_ID}+@${DOMAIN}/)?(?:${NODE_ID}+@)?${DOMAIN}(?:/${RESOURCE_ID}+)?(?:${QUERY})?)|(?:magnet:${QUERY}))`,
  "giu",
);

// twitter-text keeps t.co links to their slug, and gives up on domains whose URL would grow past
// 4096 characters once the domain is written in ASCII.
const TCO_URL = /^https?:\/\/t\.co\/([a-z0-9]+)/i;
const MAX_TCO_SLUG_LENGTH = 40;
const MAX_URL_LENGTH = 4096;

/** URLs with a scheme, where Mastodon would link them. Indices are UTF-16 offsets into `text`. */
export function scanUrls(text: string): UrlMatch[] {
  if (!text.includes("://")) return [];
  const found: UrlMatch[] = [];
  for (const match of text.matchAll(VALID_URL)) {
    const { before, domain } = match.groups!;
    let url = match.groups!.url;
    const tco = TCO_URL.exec(url);
    if (tco) {
      if (tco[1].length > MAX_TCO_SLUG_LENGTH) continue;
      url = tco[0];
    }
    if (!fitsAsAscii(url, domain)) continue;
    const start = match.index + before.length;
    found.push({ url, start, end: start + url.length, linkable: !domain.includes("\\") });
  }
  return found;
}

/** xmpp: and magnet: URIs, which Mastodon links as well. */
export function scanExtendedUris(text: string): UrlMatch[] {
  if (!EXTENDED_SCHEME.test(text)) return [];
  return Array.from(text.matchAll(EXTENDED_URI), (match) => {
    const start = match.index + match.groups!.before.length;
    return { url: match.groups!.url, start, end: start + match.groups!.url.length, linkable: true };
  });
}

function fitsAsAscii(url: string, domain: string): boolean {
  const ascii = domainToASCII(domain);
  if (!ascii) return false;
  const domainLength = codePoints(domain);
  return codePoints(url) + Math.max(0, ascii.length - domainLength) <= MAX_URL_LENGTH;
}

function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}
