import { z } from "zod";
import { renderAdminReports } from "../../serializers/admin_report.ts";
import {
  assignReport,
  listReports,
  reopenReport,
  requireReport,
  requireReportManager,
  resolveReport,
  updateReport,
} from "../../services/admin_reports.ts";
import { currentUser, requireUser } from "../auth.ts";
import { type Ctx, params, router } from "../hono.ts";
import { pageParams, setLinkHeader } from "../pagination.ts";
import { parse, zBool, zStrings, zText } from "../validate.ts";

export const adminReports = router();

const read = requireUser("admin:read", "admin:read:reports");
const write = requireUser("admin:write", "admin:write:reports");

/** The moderator acting, once their role is known to allow it. */
function moderator(c: Ctx): string {
  const user = currentUser(c);
  requireReportManager(user.role);
  return user.accountId;
}

const one = async (c: Ctx, id: string) => c.json((await renderAdminReports(c.var.rt, [id], moderator(c)))[0]);

const listSchema = z.object({ resolved: zBool(), account_id: zText(), target_account_id: zText() });

adminReports.get("/api/v1/admin/reports", read, async (c) => {
  const viewer = moderator(c);
  const all = await params(c);
  const p = parse(listSchema, all);
  const result = await listReports(
    c.var.rt,
    { resolved: p.resolved ?? false, accountId: p.account_id, targetAccountId: p.target_account_id },
    pageParams(all, { default: 100, max: 200 }),
  );
  setLinkHeader(c, c.var.rt.config.origin, result);
  return c.json(await renderAdminReports(c.var.rt, result.items, viewer));
});

adminReports.get("/api/v1/admin/reports/:id", read, async (c) => {
  moderator(c);
  return one(c, await requireReport(c.var.rt, c.req.param("id")));
});

const updateSchema = z.object({ category: zText(), rule_ids: zStrings() });

adminReports.put("/api/v1/admin/reports/:id", write, async (c) => {
  moderator(c);
  const p = parse(updateSchema, await params(c));
  return one(c, await updateReport(c.var.rt, c.req.param("id"), { category: p.category, ruleIds: p.rule_ids }));
});

adminReports.post("/api/v1/admin/reports/:id/assign_to_self", write, async (c) =>
  one(c, await assignReport(c.var.rt, c.req.param("id"), moderator(c))),
);

adminReports.post("/api/v1/admin/reports/:id/unassign", write, async (c) => {
  moderator(c);
  return one(c, await assignReport(c.var.rt, c.req.param("id"), null));
});

adminReports.post("/api/v1/admin/reports/:id/resolve", write, async (c) =>
  one(c, await resolveReport(c.var.rt, c.req.param("id"), moderator(c))),
);

adminReports.post("/api/v1/admin/reports/:id/reopen", write, async (c) => {
  moderator(c);
  return one(c, await reopenReport(c.var.rt, c.req.param("id")));
});
