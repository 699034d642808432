import { z } from "zod";
import { type Ctx, params, router } from "../../../http/hono.ts";
import { parse, zBool, zStrings, zText } from "../../../http/validate.ts";
import { renderAdminReports } from "../../../serializers/admin_report.ts";
import {
  assignReport,
  listReports,
  reopenReport,
  requireReport,
  resolveReport,
  updateReport,
} from "../../../services/moderation/admin_reports.ts";
import { loadAdminReportViews } from "../../../services/moderation/report_views.ts";
import { pageParams, setLinkHeader } from "../../pagination.ts";
import { staffOf, staffOnly } from "./guard.ts";

export const adminReports = router();

const read = staffOnly("manageReports", "admin:read", "admin:read:reports");
const write = staffOnly("manageReports", "admin:write", "admin:write:reports");

const render = async (c: Ctx, ids: string[]) =>
  renderAdminReports(c.get("rt"), await loadAdminReportViews(c.get("rt"), staffOf(c).accountId, ids));
const one = async (c: Ctx, id: string) => c.json((await render(c, [id]))[0]);

const listSchema = z.object({ resolved: zBool(), account_id: zText(), target_account_id: zText() });

adminReports.get("/api/v1/admin/reports", read, async (c) => {
  const all = await params(c);
  const p = parse(listSchema, all);
  const result = await listReports(
    c.get("rt"),
    staffOf(c),
    { resolved: p.resolved ?? false, accountId: p.account_id, targetAccountId: p.target_account_id },
    pageParams(all, { default: 100, max: 200 }),
  );
  setLinkHeader(c, c.get("rt").config.origin, result);
  return c.json(await render(c, result.items));
});

adminReports.get("/api/v1/admin/reports/:id", read, async (c) =>
  one(c, await requireReport(c.get("rt"), staffOf(c), c.req.param("id"))),
);

const updateSchema = z.object({ category: zText(), rule_ids: zStrings() });

adminReports.put("/api/v1/admin/reports/:id", write, async (c) => {
  const p = parse(updateSchema, await params(c));
  return one(
    c,
    await updateReport(c.get("rt"), staffOf(c), c.req.param("id"), { category: p.category, ruleIds: p.rule_ids }),
  );
});

adminReports.post("/api/v1/admin/reports/:id/assign_to_self", write, async (c) =>
  one(c, await assignReport(c.get("rt"), staffOf(c), c.req.param("id"), true)),
);

adminReports.post("/api/v1/admin/reports/:id/unassign", write, async (c) =>
  one(c, await assignReport(c.get("rt"), staffOf(c), c.req.param("id"), false)),
);

adminReports.post("/api/v1/admin/reports/:id/resolve", write, async (c) =>
  one(c, await resolveReport(c.get("rt"), staffOf(c), c.req.param("id"))),
);

adminReports.post("/api/v1/admin/reports/:id/reopen", write, async (c) =>
  one(c, await reopenReport(c.get("rt"), staffOf(c), c.req.param("id"))),
);
