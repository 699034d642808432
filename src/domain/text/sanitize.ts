// Remote HTML (ActivityPub `content`, `summary`, profile notes and fields) cut down to what
// Mastodon keeps (its MASTODON_STRICT sanitize config): a few text-level and block elements,
// links to the schemes it links, microformats and link-formatting classes, translate="no".
// Everything else goes: scripts and styles with their content, other elements with their tags
// only, event handlers, style attributes, images.
import type sanitizeHtml from "sanitize-html";
import { lazy } from "../../lazy.ts";

/** Loaded with the first remote or operator HTML (src/lazy.ts). */
export const loadSanitizeHtml = lazy<typeof sanitizeHtml>("sanitize-html");

const LINK_SCHEMES = "http https dat dweb ipfs ipns ssb gopher xmpp magnet gemini".split(" ");
// Sanitize's own reading of a scheme, which also sees "java&#58;script:"-style encodings.
const SCHEME = /^[\t\n\v\f\r ]*([^/#]*?)(?::|&#0*58|&#x0*3a)/i;

const CLASSES = [/^(?:h|p|u|dt|e)-/, "mention", "hashtag", "ellipsis", "invisible", "quote-inline"];

// Mastodon turns headings into a bold paragraph, and (like any Sanitize config) puts spaces where
// it removes a block element so that its words do not run into the next block's. sanitize-html
// can only rename elements, so they become these marker elements, rewritten after sanitizing.
const HEADING = "rookery-heading";
const BLOCK = "rookery-block";
const SPACED_BLOCKS = "address article aside dd div dl dt footer header hgroup hr nav section".split(" ");

const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [
    ..."p br span a del s pre blockquote code b strong u i em ul ol li ruby rt rp".split(" "),
    HEADING,
    BLOCK,
  ],
  allowedAttributes: {
    a: ["href", "rel", "class", "translate", "target"],
    span: ["class", "translate"],
    ol: ["start", "reversed"],
    li: ["value"],
    p: ["class"],
  },
  allowedClasses: { a: CLASSES, span: CLASSES, p: CLASSES },
  allowedSchemes: LINK_SCHEMES,
  allowedSchemesByTag: {},
  allowProtocolRelative: false,
  nonTextTags: "iframe math noembed noframes noscript plaintext script style svg xmp".split(" "),
  transformTags: {
    a: (tagName, attribs) => ({
      tagName,
      attribs: { ...keptAttributes(attribs), rel: "nofollow noopener", target: "_blank" },
    }),
    span: (tagName, attribs) => ({ tagName, attribs: keptAttributes(attribs) }),
    ...Object.fromEntries(["h1", "h2", "h3", "h4", "h5", "h6"].map((h) => [h, HEADING])),
    ...Object.fromEntries(SPACED_BLOCKS.map((block) => [block, BLOCK])),
  },
  // A link Mastodon would not follow keeps its text only.
  exclusiveFilter: (frame) => (frame.tag === "a" && frame.attribs.href === undefined ? "excludeTag" : false),
};

const MARKERS = new RegExp(`<(/?)(${HEADING}|${BLOCK})>`, "g");

export function sanitizeRemoteHtml(html: string): string {
  return loadSanitizeHtml()(html, OPTIONS).replace(MARKERS, (_, closing: string, marker: string) => {
    if (marker === BLOCK) return " ";
    return closing ? "</strong></p>" : "<p><strong>";
  });
}

// Mastodon replaces a link's rel and target, keeps translate only as "no" and follows only the
// schemes it links (no javascript:, data: or relative links). Other attributes keep their order.
function keptAttributes(attribs: sanitizeHtml.Attributes): sanitizeHtml.Attributes {
  return Object.fromEntries(
    Object.entries(attribs).filter(([name, value]) => {
      if (name === "href") return hasLinkScheme(value);
      if (name === "translate") return value === "no";
      return name !== "target";
    }),
  );
}

function hasLinkScheme(href: string): boolean {
  const scheme = SCHEME.exec(href)?.[1].toLowerCase();
  return scheme !== undefined && LINK_SCHEMES.includes(scheme);
}
