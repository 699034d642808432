// CORS for the API: every origin may read Mastodon's answers, and these headers of them.
export const EXPOSED_HEADERS = [
  "Link",
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
  "X-Request-Id",
  "Mastodon-Async-Refresh",
].join(", ");
