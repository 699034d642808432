// Markdown the operator writes (about page, privacy policy, terms of service) as safe HTML.
import { marked } from "marked";
import sanitizeHtml from "sanitize-html";

export function markdownToHtml(text: string): string {
  return sanitizeHtml(marked.parse(text, { async: false }), {
    allowedTags: sanitizeHtml.defaults.allowedTags.concat(["h1", "h2"]),
    allowedAttributes: { a: ["href", "rel", "target"] },
  }).trim();
}
