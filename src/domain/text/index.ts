// The text rules statuses and bios share: finding mentions, hashtags and links, rendering plain
// text to Mastodon's HTML, counting length, and handling remote HTML.

export { extractHashtags, extractMentions, extractUrls, type MentionRef } from "./entities.ts";
export { isValidHashtag, normalizeHashtag } from "./hashtags.ts";
export { detectLanguage } from "./language.ts";
export { countCharacters, countGraphemes } from "./length.ts";
export { mentionKey } from "./mentions.ts";
export { htmlToPlainText } from "./plain_text.ts";
export { type RenderOptions, type ResolvedMention, renderPlainText, renderProfileField } from "./render.ts";
export { sanitizeRemoteHtml } from "./sanitize.ts";
