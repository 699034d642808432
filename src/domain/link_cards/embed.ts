// The HTML of an embed (an oEmbed `html`, a Twitter player) as a card may carry it: iframes alone,
// with the attributes and the http(s) sources Mastodon's MASTODON_OEMBED sanitizer allows and its
// sandbox added; everything else (scripts, markup, text) is dropped.
import { Parser } from "htmlparser2";

const ATTRIBUTES = ["allowfullscreen", "frameborder", "height", "scrolling", "src", "width"];
const SANDBOX = "allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox allow-forms";

export function sanitizeEmbed(html: string): string {
  let out = "";
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (name !== "iframe") return;
        let tag = "<iframe";
        for (const key of ATTRIBUTES) {
          const value = attributes[key];
          if (value === undefined) continue;
          if (key === "src" && !/^https?:\/\//i.test(value.trim())) return;
          tag += ` ${key}="${escapeAttribute(value)}"`;
        }
        if (attributes.src === undefined) return;
        out += `${tag} sandbox="${SANDBOX}"></iframe>`;
      },
    },
    { decodeEntities: true },
  );
  parser.end(html);
  return out;
}

export function escapeAttribute(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
