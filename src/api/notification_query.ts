// The filtering parameters shared by /api/v1/notifications and /api/v2/notifications.
import { z } from "zod";
import { isId } from "../domain/ids.ts";
import { WORD_MAX } from "../domain/lengths.ts";
import type { Params } from "../http/params.ts";
import { parse, zBool, zInt, zStrings, zText } from "../http/validate.ts";
import type { GroupQuery } from "../services/notifications/groups.ts";

const schema = z.object({
  types: zStrings(WORD_MAX),
  exclude_types: zStrings(WORD_MAX),
  grouped_types: zStrings(WORD_MAX),
  account_id: zText(),
  include_filtered: zBool(),
});

export function notificationQuery(params: Params): GroupQuery {
  const p = parse(schema, params);
  return {
    types: p.types,
    excludeTypes: p.exclude_types,
    groupedTypes: p.grouped_types,
    // An account id that is not one of ours names no sender: nothing matches it.
    fromAccountId: p.account_id === undefined ? null : isId(p.account_id) ? p.account_id : "0",
    includeFiltered: p.include_filtered ?? false,
  };
}

/** The `limit` of the unread counts: 100 by default, at most 1,000. */
export function countLimit(params: Params): number {
  const { limit } = parse(z.object({ limit: zInt() }), params);
  return Math.min(Math.max(limit ?? 100, 1), 1000);
}
