// Hashtags as Mastodon's Tag::HASHTAG_RE and HashtagNormalizer define them.
import { codePoints, HASHTAG_MAX } from "../lengths.ts";
import { ALNUM, ALPHA, SPACE, WORD } from "./char_classes.ts";

export interface HashtagMatch {
  /** The name as written, without its `#`. */
  name: string;
  start: number;
  end: number;
}

// Word characters (letters, marks, digits, "_") joined by the separators "_", "·", "・" and ZWNJ,
// with at least one letter or separator, so "#123" is no hashtag but "#1·2" is. A hashtag starts
// the text or follows white space, so "a#b" and "https://x.org/#top" hold none.
const SEPARATORS = "_\\u00B7\\u30FB\\u200C";
const NAME =
  `(?:[${WORD}][${WORD}${SEPARATORS}]*[${ALPHA}${SEPARATORS}][${WORD}${SEPARATORS}]*[${WORD}])` +
  `|(?:[${WORD}]*[${ALPHA}][${WORD}]*)`;
const HASHTAG = new RegExp(`(?<=^|[${SPACE}])[#＃](?<name>${NAME})`, "gu");
const HASHTAG_NAME = new RegExp(`^(?:${NAME})$`, "u");
// "#tagshttps://…": the scheme is no part of the tag.
const SCHEME_SUFFIX = /^(.+)(https?)$/s;
const INVALID_CHARS = new RegExp(`[^${ALNUM}\\u0E47-\\u0E4E${SEPARATORS}]`, "gu");

export function scanHashtags(text: string): HashtagMatch[] {
  if (!/[#＃]/.test(text)) return [];
  return Array.from(text.matchAll(HASHTAG), (match) => {
    let name = match.groups!.name;
    const end = match.index + match[0].length;
    const glued = text.startsWith("://", end) ? SCHEME_SUFFIX.exec(name) : null;
    if (glued) name = glued[1];
    return { name, start: match.index, end: match.index + 1 + name.length };
  });
}

/** Whether `name` (without `#`) is a hashtag Mastodon accepts, e.g. as a followed or featured tag. */
export function isValidHashtag(name: string): boolean {
  return codePoints(name) <= HASHTAG_MAX && HASHTAG_NAME.test(name);
}

/**
 * The storage and lookup key of a hashtag: NFKC (full-width letters become ASCII), lowercase,
 * Latin letters folded to ASCII ("Café" and "cafe" are one tag), and anything but letters, digits,
 * Thai tone marks and the separators removed (including a leading "#" of a query parameter).
 */
export function normalizeHashtag(name: string): string {
  return foldLatin(name.normalize("NFKC").toLowerCase()).replace(INVALID_CHARS, "");
}

// Mastodon's ASCIIFolding maps the accented letters of Latin-1 and Latin Extended-A to their base
// letter and leaves other characters (æ, ß, œ, þ, and everything past U+017F) alone. The letters
// with a stroke or without a decomposition are listed; the others lose their diacritics.
const STROKED: Record<string, string> = {
  Ð: "D",
  ð: "d",
  Đ: "D",
  đ: "d",
  Ħ: "H",
  ħ: "h",
  ı: "i",
  ĸ: "k",
  Ŀ: "L",
  ŀ: "l",
  Ł: "L",
  ł: "l",
  ŉ: "n",
  Ŋ: "N",
  ŋ: "n",
  Ø: "O",
  ø: "o",
  ſ: "s",
  Ŧ: "T",
  ŧ: "t",
};

function foldLatin(text: string): string {
  return text.replace(/[\u00C0-\u017F]/g, (c) => STROKED[c] ?? baseLetter(c));
}

function baseLetter(c: string): string {
  const base = c.normalize("NFD")[0];
  return /[A-Za-z]/.test(base) ? base : c;
}
