import { z } from "zod";
import { params, router } from "../../http/hono.ts";
import { isObject } from "../../http/params.ts";
import { parse, pathId, truthy, zId, zStrings } from "../../http/validate.ts";
import { renderFilter, renderFilterStatus, renderKeyword } from "../../serializers/filter.ts";
import * as filterStatuses from "../../services/filters/filter_statuses.ts";
import * as filters from "../../services/filters/filters.ts";
import * as keywords from "../../services/filters/keywords.ts";
import { currentUser, requireUser } from "../auth.ts";

export const filtersV2 = router();

const READ = requireUser("read:filters");
const WRITE = requireUser("write:filters");

const keywordAttributes = z
  .union([z.array(z.unknown()), z.record(z.string(), z.unknown())])
  .optional()
  .transform((v) => (v === undefined ? undefined : (Array.isArray(v) ? v : Object.values(v)).filter(isObject)));

const filterSchema = z.object({
  title: z.string().optional(),
  context: zStrings(),
  filter_action: z.string().optional(),
  // An empty expires_in means "never".
  expires_in: z.preprocess((v) => (v === "" ? null : v), z.union([z.null(), z.coerce.number().int()]).optional()),
  keywords_attributes: keywordAttributes,
});

function changesOf(p: z.output<typeof filterSchema>): filters.FilterChanges {
  return {
    title: p.title,
    context: p.context,
    action: p.filter_action,
    expiresIn: p.expires_in,
    keywords: p.keywords_attributes?.map((k) => ({
      id: k.id === undefined || k.id === "" ? undefined : String(k.id),
      keyword: k.keyword === undefined ? undefined : String(k.keyword),
      wholeWord: truthy(k.whole_word),
      destroy: truthy(k._destroy) ?? false,
    })),
  };
}

filtersV2.get("/api/v2/filters", READ, async (c) =>
  c.json((await filters.listFilters(c.var.rt, currentUser(c).accountId)).map(renderFilter)),
);

filtersV2.post("/api/v2/filters", WRITE, async (c) => {
  const p = parse(filterSchema, await params(c));
  return c.json(renderFilter(await filters.createFilter(c.var.rt, currentUser(c).accountId, changesOf(p))));
});

filtersV2.get("/api/v2/filters/keywords/:id", READ, async (c) =>
  c.json(renderKeyword(await keywords.getKeyword(c.var.rt, currentUser(c).accountId, pathId(c.req.param("id"))))),
);

const keywordSchema = z.object({ keyword: z.string().optional(), whole_word: z.unknown().optional() });

filtersV2.put("/api/v2/filters/keywords/:id", WRITE, async (c) => {
  const p = parse(keywordSchema, await params(c));
  const k = await keywords.updateKeyword(c.var.rt, currentUser(c).accountId, pathId(c.req.param("id")), {
    keyword: p.keyword,
    wholeWord: truthy(p.whole_word),
  });
  return c.json(renderKeyword(k));
});

filtersV2.delete("/api/v2/filters/keywords/:id", WRITE, async (c) => {
  await keywords.deleteKeyword(c.var.rt, currentUser(c).accountId, pathId(c.req.param("id")));
  return c.json({});
});

filtersV2.get("/api/v2/filters/statuses/:id", READ, async (c) =>
  c.json(
    renderFilterStatus(
      await filterStatuses.getFilterStatus(c.var.rt, currentUser(c).accountId, pathId(c.req.param("id"))),
    ),
  ),
);

filtersV2.delete("/api/v2/filters/statuses/:id", WRITE, async (c) => {
  await filterStatuses.deleteFilterStatus(c.var.rt, currentUser(c).accountId, pathId(c.req.param("id")));
  return c.json({});
});

filtersV2.get("/api/v2/filters/:id", READ, async (c) =>
  c.json(renderFilter(await filters.getFilter(c.var.rt, currentUser(c).accountId, pathId(c.req.param("id"))))),
);

filtersV2.put("/api/v2/filters/:id", WRITE, async (c) => {
  const p = parse(filterSchema, await params(c));
  const id = pathId(c.req.param("id"));
  return c.json(renderFilter(await filters.updateFilter(c.var.rt, currentUser(c).accountId, id, changesOf(p))));
});

filtersV2.delete("/api/v2/filters/:id", WRITE, async (c) => {
  await filters.deleteFilter(c.var.rt, currentUser(c).accountId, pathId(c.req.param("id")));
  return c.json({});
});

filtersV2.get("/api/v2/filters/:id/keywords", READ, async (c) =>
  c.json(
    (await keywords.listKeywords(c.var.rt, currentUser(c).accountId, pathId(c.req.param("id")))).map(renderKeyword),
  ),
);

filtersV2.post("/api/v2/filters/:id/keywords", WRITE, async (c) => {
  const p = parse(keywordSchema, await params(c));
  const k = await keywords.addKeyword(c.var.rt, currentUser(c).accountId, pathId(c.req.param("id")), {
    keyword: p.keyword,
    wholeWord: truthy(p.whole_word),
  });
  return c.json(renderKeyword(k));
});

filtersV2.get("/api/v2/filters/:id/statuses", READ, async (c) =>
  c.json(
    (await filterStatuses.listFilterStatuses(c.var.rt, currentUser(c).accountId, pathId(c.req.param("id")))).map(
      renderFilterStatus,
    ),
  ),
);

filtersV2.post("/api/v2/filters/:id/statuses", WRITE, async (c) => {
  const p = parse(z.object({ status_id: zId() }), await params(c));
  const s = await filterStatuses.addFilterStatus(
    c.var.rt,
    currentUser(c).accountId,
    pathId(c.req.param("id")),
    p.status_id,
  );
  return c.json(renderFilterStatus(s));
});
