// How the admin pages write numbers, sizes, times and durations: in the page's language where it
// has a way, in UTC everywhere so that staff in different places read the same time.
import { humanBytes } from "../../services/moderation/measures.ts";
import type { Language } from "../i18n.ts";

export const number = (lang: Language, n: number) => new Intl.NumberFormat(lang.locale).format(n);

export const bytes = (n: number) => humanBytes(n);

export const day = (d: Date) => d.toISOString().slice(0, 10);

export const minute = (d: Date) => `${d.toISOString().slice(0, 16).replace("T", " ")} UTC`;

/** A wait, to the second below two minutes, then in minutes, hours or days. */
export function duration(seconds: number): string {
  if (seconds < 120) return `${Math.round(seconds)} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  if (seconds < 172_800) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86_400)} d`;
}
