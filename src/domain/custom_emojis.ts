// Custom emoji shortcodes: what a valid one is, and the `:shortcode:`s a text uses (Mastodon's
// rule: not glued to a letter, digit or colon on either side). Pure.

export const SHORTCODE = /^[a-zA-Z0-9_]{2,}$/;

const USE = /(?<=^|[^\p{L}\p{N}:]):([a-zA-Z0-9_]{2,}):(?=[^\p{L}\p{N}:]|$)/gmu;

export function shortcodesIn(...texts: string[]): string[] {
  const found = new Set<string>();
  for (const text of texts) for (const m of text.matchAll(USE)) found.add(m[1]);
  return [...found];
}
