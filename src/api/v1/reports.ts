import { z } from "zod";
import { WORD_MAX } from "../../domain/lengths.ts";
import { params, router } from "../../http/hono.ts";
import { parse, zFlag, zRefs, zString, zStrings, zText } from "../../http/validate.ts";
import { renderReport } from "../../serializers/report.ts";
import { loadReportViews } from "../../services/moderation/report_views.ts";
import { createReport } from "../../services/moderation/reports.ts";
import { currentUser, requireUser } from "../auth.ts";

export const reports = router();

const schema = z.object({
  account_id: zString(),
  status_ids: zRefs(),
  rule_ids: zStrings(),
  comment: zString(),
  category: zText(WORD_MAX),
  forward: zFlag(),
  forward_to_domains: zStrings(),
});

reports.post("/api/v1/reports", requireUser("write:reports"), async (c) => {
  const p = parse(schema, await params(c));
  const id = await createReport(c.get("rt"), currentUser(c).accountId, {
    targetId: p.account_id,
    statusIds: p.status_ids ?? [],
    ruleIds: p.rule_ids ?? [],
    comment: p.comment ?? "",
    category: p.category,
    forward: p.forward,
    forwardToDomains: p.forward_to_domains,
  });
  const view = (await loadReportViews(c.get("rt"), [id])).get(id);
  return c.json(view ? renderReport(c.get("rt"), view) : undefined);
});
