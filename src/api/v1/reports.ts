import { z } from "zod";
import { params, router } from "../../http/hono.ts";
import { parse, zStrings, zText } from "../../http/validate.ts";
import { renderReports } from "../../serializers/report.ts";
import { createReport } from "../../services/moderation/reports.ts";
import { currentUser, requireUser } from "../auth.ts";

export const reports = router();

const schema = z.object({
  account_id: z.preprocess((v) => (typeof v === "number" ? String(v) : v), z.string().optional()),
  status_ids: zStrings(),
  rule_ids: zStrings(),
  comment: z.preprocess((v) => (v === null ? undefined : v), z.string().optional()),
  category: zText(),
});

reports.post("/api/v1/reports", requireUser("write:reports"), async (c) => {
  const p = parse(schema, await params(c));
  const id = await createReport(c.var.rt, currentUser(c).accountId, {
    targetId: p.account_id,
    statusIds: p.status_ids ?? [],
    ruleIds: p.rule_ids ?? [],
    comment: p.comment ?? "",
    category: p.category,
  });
  return c.json((await renderReports(c.var.rt, [id])).get(id));
});
