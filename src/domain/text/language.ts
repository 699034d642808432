// The language of a status when its author's client did not say. Mastodon itself stopped
// guessing (it uses the author's default language); we guess only when the text is long and
// clear enough, and otherwise leave the choice to that default.
//
// The detector is eld (Nito-ELD), whose smallest database is accurate on sentence-length text. Its
// database (about 30 MB of memory) is imported on the first guess, not when the server starts.
import { extractEntities, rewrite } from "./entities.ts";

// Custom emoji shortcodes (":blobcat:") carry no language.
const SHORTCODE = /(?<![\p{L}\p{N}:]):\w{2,}:(?![\p{L}\p{N}:])/gu;
// Made on first use: it loads ICU's word-break data (about 3 MB).
let words: Intl.Segmenter | undefined;
// One word says too little: "Merci" scores Italian, "Gut" German and English alike.
const MIN_WORDS = 2;

type Detector = { detect(text: string): { language: string; isReliable(): boolean } };
let detector: Promise<Detector> | null = null;

/** An ISO 639-1 code, or null when the text (without mentions, links and hashtags) is too short or unclear. */
export async function detectLanguage(text: string): Promise<string | null> {
  const prose = rewrite(text, extractEntities(text), () => " ").replace(SHORTCODE, " ");
  if (countWords(prose) < MIN_WORDS) return null;
  detector ??= import("eld/extrasmall").then((m) => m.eld as Detector);
  const result = (await detector).detect(prose);
  return result.language !== "" && result.isReliable() ? result.language : null;
}

function countWords(text: string): number {
  let count = 0;
  words ??= new Intl.Segmenter(undefined, { granularity: "word" });
  for (const segment of words.segment(text)) if (segment.isWordLike) count++;
  return count;
}
