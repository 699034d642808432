// Matching statuses against a person's filters, as Mastodon does: keywords case-insensitively,
// on word boundaries when `whole_word` is set (a boundary only where the keyword itself starts or
// ends with a word character), and filtered statuses by id.
import type { FilterAction, FilterContext } from "../db/schema.ts";

export interface FilterSummary {
  id: string;
  title: string;
  context: FilterContext[];
  action: FilterAction;
  expires_at: Date | null;
}

export interface CompiledFilter {
  filter: FilterSummary;
  keywords: { keyword: string; pattern: RegExp }[];
  statusIds: Set<string>;
}

export interface FilterMatch {
  filter: FilterSummary;
  keywordMatches: string[] | null;
  statusMatches: string[] | null;
}

const WORD = String.raw`[\p{L}\p{M}\p{N}\p{Pc}]`;
const STARTS_WITH_WORD = new RegExp(`^${WORD}`, "u");
const ENDS_WITH_WORD = new RegExp(`${WORD}$`, "u");

export function keywordPattern(keyword: string, wholeWord: boolean): RegExp {
  // RegExp.escape writes punctuation as \xNN, valid in a "u" pattern (where `\-` is a syntax error).
  const escaped = RegExp.escape(keyword);
  if (!wholeWord) return new RegExp(escaped, "iu");
  const start = STARTS_WITH_WORD.test(keyword) ? `(?<!${WORD})` : "";
  const end = ENDS_WITH_WORD.test(keyword) ? `(?!${WORD})` : "";
  return new RegExp(`${start}${escaped}${end}`, "iu");
}

/** The filters (active, in `context`) that match a status; `text` is everything searchable in it. */
export function matchFilters(
  filters: CompiledFilter[],
  context: FilterContext,
  status: { id: string; text: string },
  now = new Date(),
): FilterMatch[] {
  const out: FilterMatch[] = [];
  for (const f of filters) {
    if (!f.filter.context.includes(context)) continue;
    if (f.filter.expires_at && f.filter.expires_at <= now) continue;
    const keywords = f.keywords.filter((k) => k.pattern.test(status.text)).map((k) => k.keyword);
    const byStatus = f.statusIds.has(status.id);
    if (keywords.length === 0 && !byStatus) continue;
    out.push({
      filter: f.filter,
      keywordMatches: keywords.length > 0 ? keywords : null,
      statusMatches: byStatus ? [status.id] : null,
    });
  }
  return out;
}
