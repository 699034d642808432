// The one place that builds this server's URLs.
import type { Config } from "../config.ts";

export function urls(config: Pick<Config, "origin">) {
  const o = config.origin;
  return {
    origin: o,
    /** ActivityPub id of a local actor. */
    accountUri: (username: string) => `${o}/users/${username}`,
    /** The ActivityPub endpoints of a local actor. */
    actor: (username: string) => ({
      inbox: `${o}/users/${username}/inbox`,
      outbox: `${o}/users/${username}/outbox`,
      followers: `${o}/users/${username}/followers`,
      following: `${o}/users/${username}/following`,
      featured: `${o}/users/${username}/collections/featured`,
      sharedInbox: `${o}/inbox`,
    }),
    /** Profile page of a local account. */
    accountUrl: (username: string) => `${o}/@${username}`,
    statusUri: (username: string, id: string) => `${o}/users/${username}/statuses/${id}`,
    statusUrl: (username: string, id: string) => `${o}/@${username}/${id}`,
    /** A local post's page made to be shown in another site's iframe (oEmbed). */
    statusEmbedUrl: (username: string, id: string) => `${o}/@${username}/${id}/embed`,
    /** The oEmbed document of a page of ours. */
    oembedUrl: (pageUrl: string) => `${o}/api/oembed?format=json&url=${encodeURIComponent(pageUrl)}`,
    tagUrl: (name: string) => `${o}/tags/${encodeURIComponent(name)}`,
    /** A local account's posts with a hashtag (a featured tag's link). */
    accountTaggedUrl: (username: string, tag: string) => `${o}/@${username}/tagged/${encodeURIComponent(tag)}`,
    media: (path: string) => `${o}/system/${path}`,
    /** A remote attachment not in our storage: fetched into it when asked for (Mastodon's media proxy). */
    mediaProxy: (id: string, style: "original" | "small") => `${o}/media_proxy/${id}/${style}`,
    /** ActivityPub id of a local custom emoji. */
    emojiUri: (id: string) => `${o}/emojis/${id}`,
    api: (path: string) => `${o}${path}`,
    /** ActivityPub id of a report's Flag (forwarded to another server; not served). */
    reportUri: (id: string) => `${o}/reports/${id}`,
  };
}
