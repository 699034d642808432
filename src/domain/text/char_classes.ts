// Mastodon writes its text patterns for Ruby's regex engine (Onigmo), whose POSIX bracket classes
// follow Unicode on UTF-8 strings. These are the same definitions as `u`-mode class bodies, so our
// patterns accept exactly the characters Mastodon's do:
//   [[:alpha:]] is the Alphabetic property; [[:alnum:]] adds decimal digits;
//   [[:word:]] is Alphabetic, marks, decimal digits and connector punctuation;
//   [[:space:]] and \p{White_Space} are the White_Space property.

export const ALPHA = "\\p{Alphabetic}";
export const ALNUM = "\\p{Alphabetic}\\p{Nd}";
export const WORD = "\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}";
export const SPACE = "\\p{White_Space}";

/** twitter-text's LATIN_ACCENTS: letters that continue a word such as "josé" past its ASCII part. */
export const LATIN_ACCENTS =
  "\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u00FF\\u0100-\\u024F\\u0253\\u0254\\u0256\\u0257\\u0259\\u025B" +
  "\\u0263\\u0268\\u026F\\u0272\\u0289\\u028B\\u02BB\\u0300-\\u036F\\u1E00-\\u1EFF";

const RUBY_STRIP = /^[\0\t\n\v\f\r ]+|[\0\t\n\v\f\r ]+$/g;
const BLANK = /^\p{White_Space}*$/u;

/** Ruby's String#strip, which Mastodon applies to status text, bios and field values before use. */
export function rubyStrip(text: string): string {
  return text.replace(RUBY_STRIP, "");
}

/** ActiveSupport's `blank?`: empty or Unicode white space only. */
export function isBlank(text: string): boolean {
  return BLANK.test(text);
}
