// The length Mastodon's StatusLengthValidator checks: user-perceived characters (grapheme
// clusters) of the stripped text, once each URL is replaced by `charsPerUrl` characters and each
// remote mention by its "@username" part.
import { isBlank, rubyStrip } from "./char_classes.ts";
import { rewrite, withoutOverlaps } from "./entities.ts";
import { scanMentions } from "./mentions.ts";
import { scanUrls } from "./urls.ts";

// Made on first use, as the word segmenter in language.ts: each loads ICU data (about 3 MB).
let graphemes: Intl.Segmenter | undefined;

export function countCharacters(text: string, charsPerUrl: number): number {
  const stripped = rubyStrip(text);
  if (isBlank(stripped)) return 0;
  const placeholder = "x".repeat(charsPerUrl);
  const entities = withoutOverlaps([
    ...scanUrls(stripped).map((url) => ({ ...url, countedAs: placeholder })),
    ...scanMentions(stripped).map((mention) => ({ ...mention, countedAs: `@${mention.username}` })),
  ]);
  return countGraphemes(rewrite(stripped, entities, (entity) => entity.countedAs));
}

/** Grapheme clusters, as Ruby's each_grapheme_cluster counts them (a content warning counts so). */
export function countGraphemes(text: string): number {
  let count = 0;
  graphemes ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  for (const _ of graphemes.segment(text)) count++;
  return count;
}
