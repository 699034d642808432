import { z } from "zod";
import { FILTER_KEYWORD_MAX, WORD_MAX } from "../../domain/lengths.ts";
import { params, router } from "../../http/hono.ts";
import { parse, pathId, zBool, zNullableInt, zString, zStrings } from "../../http/validate.ts";
import { renderV1Filter } from "../../serializers/filter.ts";
import * as filters from "../../services/filters/v1.ts";
import { currentUser, requireUser } from "../auth.ts";

// The deprecated v1 filters, still used by older apps: each is one keyword of a v2 filter.
export const filtersV1 = router();

const schema = z.object({
  phrase: zString(FILTER_KEYWORD_MAX),
  context: zStrings(WORD_MAX),
  irreversible: zBool(),
  whole_word: zBool(),
  expires_in: zNullableInt(),
});

const inputOf = (p: z.output<typeof schema>): filters.V1FilterInput => ({
  phrase: p.phrase,
  context: p.context,
  irreversible: p.irreversible,
  wholeWord: p.whole_word,
  expiresIn: p.expires_in,
});

filtersV1.get("/api/v1/filters", requireUser("read:filters"), async (c) =>
  c.json((await filters.listV1Filters(c.get("rt"), currentUser(c).accountId)).map(renderV1Filter)),
);

filtersV1.post("/api/v1/filters", requireUser("write:filters"), async (c) => {
  const p = parse(schema, await params(c));
  return c.json(renderV1Filter(await filters.createV1Filter(c.get("rt"), currentUser(c).accountId, inputOf(p))));
});

filtersV1.get("/api/v1/filters/:id", requireUser("read:filters"), async (c) =>
  c.json(renderV1Filter(await filters.getV1Filter(c.get("rt"), currentUser(c).accountId, pathId(c.req.param("id"))))),
);

filtersV1.put("/api/v1/filters/:id", requireUser("write:filters"), async (c) => {
  const p = parse(schema, await params(c));
  const id = pathId(c.req.param("id"));
  return c.json(renderV1Filter(await filters.updateV1Filter(c.get("rt"), currentUser(c).accountId, id, inputOf(p))));
});

filtersV1.delete("/api/v1/filters/:id", requireUser("write:filters"), async (c) => {
  await filters.deleteV1Filter(c.get("rt"), currentUser(c).accountId, pathId(c.req.param("id")));
  return c.json({});
});
