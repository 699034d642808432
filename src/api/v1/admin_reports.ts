import type { MiddlewareHandler } from "hono";
import { z } from "zod";
import { type AppEnv, type Ctx, params, router } from "../../http/hono.ts";
import { parse, zBool, zStrings, zText } from "../../http/validate.ts";
import { renderAdminReports } from "../../serializers/admin_report.ts";
import {
  assignReport,
  listReports,
  reopenReport,
  requireReport,
  requireReportManager,
  resolveReport,
  updateReport,
} from "../../services/moderation/admin_reports.ts";
import { loadAdminReportViews } from "../../services/moderation/report_views.ts";
import { currentUser, requireUser } from "../auth.ts";
import { pageParams, setLinkHeader } from "../pagination.ts";

export const adminReports = router();

/** Staff whose role may manage reports, with a token holding one of `scopes`. */
const moderator = (...scopes: string[]): MiddlewareHandler<AppEnv> => {
  const token = requireUser(...scopes);
  return (c, next) =>
    token(c, async () => {
      requireReportManager(currentUser(c).role);
      await next();
    });
};
const read = moderator("admin:read", "admin:read:reports");
const write = moderator("admin:write", "admin:write:reports");

const me = (c: Ctx) => currentUser(c).accountId;
const render = async (c: Ctx, ids: string[]) =>
  renderAdminReports(c.var.rt, await loadAdminReportViews(c.var.rt, me(c), ids));
const one = async (c: Ctx, id: string) => c.json((await render(c, [id]))[0]);

const listSchema = z.object({ resolved: zBool(), account_id: zText(), target_account_id: zText() });

adminReports.get("/api/v1/admin/reports", read, async (c) => {
  const all = await params(c);
  const p = parse(listSchema, all);
  const result = await listReports(
    c.var.rt,
    { resolved: p.resolved ?? false, accountId: p.account_id, targetAccountId: p.target_account_id },
    pageParams(all, { default: 100, max: 200 }),
  );
  setLinkHeader(c, c.var.rt.config.origin, result);
  return c.json(await render(c, result.items));
});

adminReports.get("/api/v1/admin/reports/:id", read, async (c) =>
  one(c, await requireReport(c.var.rt, c.req.param("id"))),
);

const updateSchema = z.object({ category: zText(), rule_ids: zStrings() });

adminReports.put("/api/v1/admin/reports/:id", write, async (c) => {
  const p = parse(updateSchema, await params(c));
  return one(c, await updateReport(c.var.rt, c.req.param("id"), { category: p.category, ruleIds: p.rule_ids }));
});

adminReports.post("/api/v1/admin/reports/:id/assign_to_self", write, async (c) =>
  one(c, await assignReport(c.var.rt, c.req.param("id"), me(c))),
);

adminReports.post("/api/v1/admin/reports/:id/unassign", write, async (c) =>
  one(c, await assignReport(c.var.rt, c.req.param("id"), null)),
);

adminReports.post("/api/v1/admin/reports/:id/resolve", write, async (c) =>
  one(c, await resolveReport(c.var.rt, c.req.param("id"), me(c))),
);

adminReports.post("/api/v1/admin/reports/:id/reopen", write, async (c) =>
  one(c, await reopenReport(c.var.rt, c.req.param("id"))),
);
