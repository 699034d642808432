// The longest text some parameters may hold, in characters (code points, as Ruby counts), where no
// other rule bounds them. Mastodon's own maxima where its models have one; docs/request-limits.md
// lists every parameter's maximum. Anything stored in an indexed column must stay well under PostgreSQL's index
// row size (about 2,700 bytes).

/** Ruby's String#length: code points, which is how Mastodon's length validations count. */
export function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** Mastodon's List::TITLE_LENGTH_LIMIT. */
export const LIST_TITLE_MAX = 256;

/** Mastodon's CustomFilter::TITLE_LENGTH_LIMIT. */
export const FILTER_TITLE_MAX = 256;

/** Mastodon's CustomFilterKeyword::KEYWORD_LENGTH_LIMIT. */
export const FILTER_KEYWORD_MAX = 512;

/** Mastodon sets none; tag names are unique-indexed, so Rookery keeps them to this. */
export const HASHTAG_MAX = 256;

/** Values from a fixed vocabulary (visibilities, contexts, notification types, timelines, categories). */
export const WORD_MAX = 100;
