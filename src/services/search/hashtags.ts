// Hashtags by the start of their name (GET /api/v2/search, type=hashtags), for composer
// autocomplete: the shortest names first, so an exact match leads, as in Mastodon. Tags staff made
// unlisted are not offered.
import { sql } from "kysely";
import { normalizeHashtag } from "../../domain/text/index.ts";
import type { Runtime } from "../../runtime.ts";
import type { Tag } from "../statuses/tags.ts";

export interface TagSearch {
  q: string;
  limit: number;
  offset: number;
  /** Only tags an operator has reviewed. */
  excludeUnreviewed: boolean;
}

export async function searchTags(rt: Runtime, s: TagSearch): Promise<Tag[]> {
  const key = normalizeHashtag(s.q.trim().replace(/^[#＃]/u, ""));
  if (key === "" || s.limit < 1) return [];
  let q = rt.db
    .selectFrom("tags")
    .selectAll()
    .where(sql<boolean>`name like ${`${key.replace(/[\\%_]/g, (m) => `\\${m}`)}%`} escape '\\'`)
    .where((eb) => eb.or([eb("listable", "is", null), eb("listable", "=", true)]));
  // The exact match is offered reviewed or not, as Mastodon offers it: someone typed the whole tag.
  if (s.excludeUnreviewed) q = q.where((eb) => eb.or([eb("reviewed_at", "is not", null), eb("name", "=", key)]));
  return q.orderBy(sql`length(name)`).orderBy("name").limit(s.limit).offset(s.offset).execute();
}
