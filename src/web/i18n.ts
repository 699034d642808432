// The languages of the web pages, and the choice of one for a request: the `lang` parameter that
// apps pass to /oauth/authorize (as on Mastodon), else the browser's Accept-Language, else English.
import { de } from "./locales/de.ts";
import { en, type Messages } from "./locales/en.ts";
import { es } from "./locales/es.ts";
import { fr } from "./locales/fr.ts";

const LOCALES: Record<string, Messages> = { en, de, fr, es };

export interface Language {
  /** The `lang` of the page. */
  locale: string;
  t: Messages;
}

/** Accept-Language's tags, most wanted first. */
function accepted(header: string | undefined): string[] {
  return (header ?? "")
    .split(",")
    .map((part) => {
      const [tag, ...options] = part.trim().split(";");
      const q = options.map((o) => /^\s*q=([\d.]+)\s*$/.exec(o)).find(Boolean);
      return { tag, q: q ? Number(q[1]) : 1 };
    })
    .filter((t) => t.tag && t.q > 0)
    .sort((a, b) => b.q - a.q)
    .map((t) => t.tag);
}

export function pickLanguage(lang: unknown, acceptLanguage: string | undefined): Language {
  const wanted = [typeof lang === "string" ? lang : "", ...accepted(acceptLanguage)];
  for (const tag of wanted) {
    const base = tag.trim().toLowerCase().split(/[-_]/)[0];
    if (Object.hasOwn(LOCALES, base)) return { locale: base, t: LOCALES[base] };
  }
  return { locale: "en", t: en };
}

export const ENGLISH: Language = { locale: "en", t: en };
