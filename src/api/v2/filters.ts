import { z } from "zod";
import { FILTER_KEYWORD_MAX, FILTER_TITLE_MAX, WORD_MAX } from "../../domain/lengths.ts";
import { params, router } from "../../http/hono.ts";
import { parse, pathId, zBool, zFlag, zNullableInt, zRef, zString, zStrings } from "../../http/validate.ts";
import { renderFilter, renderFilterStatus, renderKeyword } from "../../serializers/filter.ts";
import * as filterStatuses from "../../services/filters/filter_statuses.ts";
import * as filters from "../../services/filters/filters.ts";
import * as keywords from "../../services/filters/keywords.ts";
import { currentUser, requireUser } from "../auth.ts";

export const filtersV2 = router();

const READ = requireUser("read:filters");
const WRITE = requireUser("write:filters");

const keywordSchema = z.object({ keyword: zString(FILTER_KEYWORD_MAX), whole_word: zBool() });

// `keywords_attributes[][keyword]` (an array) or `keywords_attributes[0][keyword]` (a hash by index).
const keywordAttributes = z
  .union([z.array(z.unknown()), z.record(z.string(), z.unknown())])
  .optional()
  .transform((v) => (v === undefined ? undefined : Array.isArray(v) ? v : Object.values(v)))
  .pipe(z.array(keywordSchema.extend({ id: zRef(), _destroy: zFlag() })).optional());

const filterSchema = z.object({
  title: zString(FILTER_TITLE_MAX),
  context: zStrings(WORD_MAX),
  filter_action: zString(WORD_MAX),
  // An empty expires_in means "never".
  expires_in: zNullableInt(),
  keywords_attributes: keywordAttributes,
});

function changesOf(p: z.output<typeof filterSchema>): filters.FilterChanges {
  return {
    title: p.title,
    context: p.context,
    action: p.filter_action,
    expiresIn: p.expires_in,
    keywords: p.keywords_attributes?.map((k) => ({
      id: k.id,
      keyword: k.keyword,
      wholeWord: k.whole_word,
      destroy: k._destroy,
    })),
  };
}

filtersV2.get("/api/v2/filters", READ, async (c) =>
  c.json((await filters.listFilters(c.get("rt"), currentUser(c).accountId)).map(renderFilter)),
);

filtersV2.post("/api/v2/filters", WRITE, async (c) => {
  const p = parse(filterSchema, await params(c));
  return c.json(renderFilter(await filters.createFilter(c.get("rt"), currentUser(c).accountId, changesOf(p))));
});

filtersV2.get("/api/v2/filters/keywords/:id", READ, async (c) =>
  c.json(renderKeyword(await keywords.getKeyword(c.get("rt"), currentUser(c).accountId, pathId(c.req.param("id"))))),
);

filtersV2.put("/api/v2/filters/keywords/:id", WRITE, async (c) => {
  const p = parse(keywordSchema, await params(c));
  const k = await keywords.updateKeyword(c.get("rt"), currentUser(c).accountId, pathId(c.req.param("id")), {
    keyword: p.keyword,
    wholeWord: p.whole_word,
  });
  return c.json(renderKeyword(k));
});

filtersV2.delete("/api/v2/filters/keywords/:id", WRITE, async (c) => {
  await keywords.deleteKeyword(c.get("rt"), currentUser(c).accountId, pathId(c.req.param("id")));
  return c.json({});
});

filtersV2.get("/api/v2/filters/statuses/:id", READ, async (c) =>
  c.json(
    renderFilterStatus(
      await filterStatuses.getFilterStatus(c.get("rt"), currentUser(c).accountId, pathId(c.req.param("id"))),
    ),
  ),
);

filtersV2.delete("/api/v2/filters/statuses/:id", WRITE, async (c) => {
  await filterStatuses.deleteFilterStatus(c.get("rt"), currentUser(c).accountId, pathId(c.req.param("id")));
  return c.json({});
});

filtersV2.get("/api/v2/filters/:id", READ, async (c) =>
  c.json(renderFilter(await filters.getFilter(c.get("rt"), currentUser(c).accountId, pathId(c.req.param("id"))))),
);

filtersV2.put("/api/v2/filters/:id", WRITE, async (c) => {
  const p = parse(filterSchema, await params(c));
  const id = pathId(c.req.param("id"));
  return c.json(renderFilter(await filters.updateFilter(c.get("rt"), currentUser(c).accountId, id, changesOf(p))));
});

filtersV2.delete("/api/v2/filters/:id", WRITE, async (c) => {
  await filters.deleteFilter(c.get("rt"), currentUser(c).accountId, pathId(c.req.param("id")));
  return c.json({});
});

filtersV2.get("/api/v2/filters/:id/keywords", READ, async (c) =>
  c.json(
    (await keywords.listKeywords(c.get("rt"), currentUser(c).accountId, pathId(c.req.param("id")))).map(renderKeyword),
  ),
);

filtersV2.post("/api/v2/filters/:id/keywords", WRITE, async (c) => {
  const p = parse(keywordSchema, await params(c));
  const k = await keywords.addKeyword(c.get("rt"), currentUser(c).accountId, pathId(c.req.param("id")), {
    keyword: p.keyword,
    wholeWord: p.whole_word,
  });
  return c.json(renderKeyword(k));
});

filtersV2.get("/api/v2/filters/:id/statuses", READ, async (c) =>
  c.json(
    (await filterStatuses.listFilterStatuses(c.get("rt"), currentUser(c).accountId, pathId(c.req.param("id")))).map(
      renderFilterStatus,
    ),
  ),
);

filtersV2.post("/api/v2/filters/:id/statuses", WRITE, async (c) => {
  const p = parse(z.object({ status_id: zRef().pipe(z.string()) }), await params(c));
  const s = await filterStatuses.addFilterStatus(
    c.get("rt"),
    currentUser(c).accountId,
    pathId(c.req.param("id")),
    p.status_id,
  );
  return c.json(renderFilterStatus(s));
});
