// The language of a mail to a user: theirs (users.locale, from their sign-up or the page they used),
// else the one given, else English.
import { mailDe } from "./mail_texts/de.ts";
import { type MailTexts, mailEn } from "./mail_texts/en.ts";
import { mailEs } from "./mail_texts/es.ts";
import { mailFr } from "./mail_texts/fr.ts";

const TEXTS: Record<string, MailTexts> = { en: mailEn, de: mailDe, es: mailEs, fr: mailFr };

export function mailTexts(...locales: (string | null | undefined)[]): MailTexts {
  for (const locale of locales) {
    const base = locale?.toLowerCase().split(/[-_]/)[0];
    if (base && Object.hasOwn(TEXTS, base)) return TEXTS[base];
  }
  return mailEn;
}
