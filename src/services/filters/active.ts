// What read paths match statuses against: each account's active filters, compiled once until they
// change (filters.changed, from any process).
import { type CompiledFilter, keywordPattern } from "../../domain/filters.ts";
import type { Runtime } from "../../runtime.ts";
import { onEvent } from "../../streaming/events.ts";
import { listFilters } from "./filters.ts";

const compiledCache = new WeakMap<Runtime, Map<string, CompiledFilter[]>>();

export async function activeFilters(rt: Runtime, accountId: string): Promise<CompiledFilter[]> {
  let cache = compiledCache.get(rt);
  if (!cache) {
    const fresh = new Map<string, CompiledFilter[]>();
    onEvent(rt, "filters.changed", ({ accountId }) => fresh.delete(accountId));
    compiledCache.set(rt, fresh);
    cache = fresh;
  }
  const hit = cache.get(accountId);
  if (hit) return hit;
  const compiled = (await listFilters(rt, accountId)).map((f) => ({
    filter: {
      id: f.filter.id,
      title: f.filter.title,
      context: f.filter.context,
      action: f.filter.action,
      expires_at: f.filter.expires_at,
    },
    keywords: f.keywords.map((k) => ({ keyword: k.keyword, pattern: keywordPattern(k.keyword, k.whole_word) })),
    statusIds: new Set(f.statuses.map((s) => s.status_id)),
  }));
  if (cache.size > 10_000) cache.clear();
  cache.set(accountId, compiled);
  return compiled;
}
