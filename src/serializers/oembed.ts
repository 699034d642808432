// Mastodon's oEmbed document of a post (OEmbedSerializer): a `rich` embed whose HTML is an iframe
// of the post's embed page.
import { html } from "hono/html";
import type { Config } from "../config.ts";
import { urls } from "../domain/urls.ts";
import type { EmbeddedStatus } from "../services/statuses/oembed.ts";

/** How long a consumer may keep the document, as Mastodon says (a day). */
const CACHE_AGE = 86_400;

export function renderOEmbed(config: Config, s: EmbeddedStatus, size: { width: number; height: number | null }) {
  const u = urls(config);
  const src = u.statusEmbedUrl(s.username, s.id);
  const iframe = html`<iframe src="${src}" class="mastodon-embed" style="max-width: 100%; border: 0" width="${size.width}"${
    size.height === null ? "" : html` height="${size.height}"`
  } allowfullscreen="allowfullscreen"></iframe>`;
  return {
    type: "rich",
    version: "1.0",
    author_name: s.displayName.trim() || s.username,
    author_url: u.accountUrl(s.username),
    provider_name: config.localDomain,
    provider_url: `${u.origin}/`,
    cache_age: CACHE_AGE,
    html: String(iframe),
    width: size.width,
    height: size.height,
  };
}
