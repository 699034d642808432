// Admin::Measures, Admin::Dimensions and Admin::Retention: the dashboard's numbers.
import { z } from "zod";
import { type Ctx, params, router } from "../../../http/hono.ts";
import type { Params } from "../../../http/params.ts";
import { parse, zInt, zStrings, zText } from "../../../http/validate.ts";
import {
  dayOf,
  dimensions,
  type KeyParams,
  measures,
  type Range,
  retention,
} from "../../../services/moderation/measures.ts";
import { staffOf, staffOnly } from "./guard.ts";

export const adminMeasures = router();

const read = staffOnly("viewDashboard", "admin:read");

const schema = z.object({ keys: zStrings(), start_at: zText(), end_at: zText(), limit: zInt(), frequency: zText() });

/** The request's keys, range, and each key's own parameters (`tag_uses[id]=…`). */
async function request(c: Ctx) {
  const all = await params(c);
  const p = parse(schema, all);
  const range: Range = { start: dayOf(p.start_at, "start_at"), end: dayOf(p.end_at, "end_at") };
  const keys = p.keys ?? [];
  const perKey: KeyParams = {};
  for (const key of keys) {
    const given = all[key] as Params | undefined;
    if (!given || typeof given !== "object" || Array.isArray(given)) continue;
    const own = parse(z.object({ id: zText(), domain: zText(), limit: zInt() }), given);
    perKey[key] = own;
  }
  return { p, range, keys, perKey };
}

adminMeasures.post("/api/v1/admin/measures", read, async (c) => {
  const { range, keys, perKey } = await request(c);
  return c.json(await measures(c.get("rt"), staffOf(c), keys, range, perKey));
});

adminMeasures.post("/api/v1/admin/dimensions", read, async (c) => {
  const { p, range, keys, perKey } = await request(c);
  return c.json(await dimensions(c.get("rt"), staffOf(c), keys, range, perKey, p.limit ?? 10));
});

adminMeasures.post("/api/v1/admin/retention", read, async (c) => {
  const { p, range } = await request(c);
  return c.json(await retention(c.get("rt"), staffOf(c), range, p.frequency ?? "day"));
});
