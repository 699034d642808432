// Markdown the operator writes (about page, privacy policy, terms of service) as safe HTML.
import { marked } from "marked";
import { loadSanitizeHtml } from "./sanitize.ts";

export function markdownToHtml(text: string): string {
  // Most servers leave these texts empty: then the sanitizer is not even loaded.
  if (text.trim() === "") return "";
  const sanitizeHtml = loadSanitizeHtml();
  return sanitizeHtml(marked.parse(text, { async: false }), {
    allowedTags: sanitizeHtml.defaults.allowedTags.concat(["h1", "h2"]),
    allowedAttributes: { a: ["href", "rel", "target"] },
  }).trim();
}
