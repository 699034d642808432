// The languages a post or a profile can be written in: ISO 639-1 codes plus the ISO 639-3 ones
// Mastodon also offers, named in English by the runtime's ICU data.

const ISO_639_1 =
  "aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz ee el " +
  "en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik io is it iu " +
  "ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na " +
  "nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so " +
  "sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu";
const ISO_639_3 = "ast chr ckb cnr csb gsw jbo kab kmr ldn lfn sco sma smj szl tok vai xal zba zgh";

const LANGUAGE_CODES: readonly string[] = `${ISO_639_1} ${ISO_639_3}`.split(" ");
const known = new Set(LANGUAGE_CODES);

export function isLanguage(code: string): boolean {
  return known.has(code);
}

// Made on first use: ICU's display names cost a process about 6 MB once loaded.
let names: Intl.DisplayNames | undefined;

/** The English name of a language, or `code` itself when ICU has none or it is no language code. */
export function languageName(code: string): string {
  names ??= new Intl.DisplayNames(["en"], { type: "language", fallback: "code" });
  try {
    return names.of(code) ?? code;
  } catch {
    return code;
  }
}

/** `[{code, name}]` as /api/v1/instance/languages lists them. */
export function languageList(): { code: string; name: string }[] {
  return LANGUAGE_CODES.map((code) => ({ code, name: languageName(code) }));
}
