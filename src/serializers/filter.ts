// Filter, FilterKeyword, FilterStatus, FilterResult and the v1 Filter entities.
import type { FilterMatch, FilterSummary } from "../domain/filters.ts";
import type { Filter, FilterKeyword, FilterStatus, FilterWithRules } from "../services/filters/filters.ts";

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function renderSummary(f: FilterSummary | Filter) {
  return { id: f.id, title: f.title, context: f.context, expires_at: iso(f.expires_at), filter_action: f.action };
}

export const renderKeyword = (k: FilterKeyword) => ({ id: k.id, keyword: k.keyword, whole_word: k.whole_word });
export const renderFilterStatus = (s: FilterStatus) => ({ id: s.id, status_id: s.status_id });

export function renderFilter(f: FilterWithRules) {
  return {
    ...renderSummary(f.filter),
    keywords: f.keywords.map(renderKeyword),
    statuses: f.statuses.map(renderFilterStatus),
  };
}

/** FilterResult, as `Status.filtered` carries it: the filter without its rules. */
export function renderFilterResult(m: FilterMatch) {
  return { filter: renderSummary(m.filter), keyword_matches: m.keywordMatches, status_matches: m.statusMatches };
}

export function renderV1Filter({ keyword, filter }: { keyword: FilterKeyword; filter: Filter }) {
  return {
    id: keyword.id,
    phrase: keyword.keyword,
    context: filter.context,
    whole_word: keyword.whole_word,
    expires_at: iso(filter.expires_at),
    irreversible: filter.action === "hide",
  };
}
