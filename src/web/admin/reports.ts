// The report queue: unresolved (or resolved) reports, and one report with the posts and rules it
// cites and what moderators do with it (take it on, change its category, resolve or reopen it).
import { html, raw } from "hono/html";
import type { ReportCategory } from "../../db/schema.ts";
import { isId } from "../../domain/ids.ts";
import { can } from "../../domain/roles.ts";
import { router } from "../../http/hono.ts";
import { renderAdminReports } from "../../serializers/admin_report.ts";
import {
  assignReport,
  listReports,
  reopenReport,
  requireReport,
  resolveReport,
  updateReport,
} from "../../services/moderation/admin_reports.ts";
import { loadAdminReportViews } from "../../services/moderation/report_views.ts";
import { CATEGORIES } from "../../services/moderation/reports.ts";
import { adminPage, button, formToken } from "./frame.ts";
import { adminRoute, type StaffVisit, saved } from "./guard.ts";

export const reportPages = router();

const PAGE_SIZE = 30;

type Report = ReturnType<typeof renderAdminReports>[number];
type AdminAccount = NonNullable<Report["account"]>;
interface CitedStatus {
  spoiler_text: string;
  content: string;
  url: string | null;
  uri: string;
  created_at: string;
  media_attachments: unknown[];
}

const acct = (a: AdminAccount | null) => (a ? (a.domain ? `@${a.username}@${a.domain}` : `@${a.username}`) : "—");
const day = (iso: string) => iso.slice(0, 10);

async function render(rt: Parameters<typeof loadAdminReportViews>[0], staff: StaffVisit, ids: string[]) {
  const views = await loadAdminReportViews(rt, staff.user.accountId, ids);
  const deleted = new Set(views.statuses.filter((s) => s.shared.row.deleted_at !== null).map((s) => s.shared.row.id));
  return { reports: renderAdminReports(rt, views), deleted };
}

reportPages.get(
  "/admin/reports",
  adminRoute("manageReports", async (c, staff) => {
    const t = staff.lang.t.admin.reports;
    const resolved = staff.params.resolved === "1";
    const maxId = typeof staff.params.max_id === "string" && isId(staff.params.max_id) ? staff.params.max_id : null;
    const page = await listReports(
      c.get("rt"),
      staff.actor,
      { resolved },
      { maxId, sinceId: null, minId: null, limit: PAGE_SIZE },
    );
    const { reports } = await render(c.get("rt"), staff, page.items);
    const rows = reports.map(
      (r) => html`<tr>
  <td><a href="/admin/reports/${r.id}">${t.report(r.id)}</a></td>
  <td>${acct(r.target_account)}</td>
  <td>${t.categories[r.category as ReportCategory]}</td>
  <td>${acct(r.account)}</td>
  <td>${r.statuses.length}</td>
  <td>${day(r.created_at)}</td>
</tr>`,
    );
    const older = page.next
      ? html`<p><a href="/admin/reports?${new URLSearchParams({ ...(resolved ? { resolved: "1" } : {}), max_id: page.next })}">${t.older}</a></p>`
      : "";
    return c.html(
      adminPage(c, staff, {
        title: t.title,
        section: "reports",
        body: html`<p><a href="/admin/reports"${resolved ? "" : html` aria-current="page"`}>${t.unresolved}</a> ·
<a href="/admin/reports?resolved=1"${resolved ? html` aria-current="page"` : ""}>${t.resolved}</a></p>
${
  reports.length === 0
    ? html`<p>${t.none}</p>`
    : html`<table>
<thead><tr><th></th><th>${t.target}</th><th>${t.category}</th><th>${t.reporter}</th><th>${t.statuses}</th><th>${t.created}</th></tr></thead>
<tbody>${rows}</tbody></table>`
}${older}`,
      }),
    );
  }),
);

reportPages.get(
  "/admin/reports/:id",
  adminRoute("manageReports", async (c, staff) => {
    const t = staff.lang.t.admin.reports;
    const id = await requireReport(c.get("rt"), staff.actor, c.req.param("id") ?? "");
    const { reports, deleted } = await render(c.get("rt"), staff, [id]);
    const r = reports[0];
    const path = `/admin/reports/${r.id}`;
    const statuses = r.statuses.map((entity) => {
      // The Status entity as the API renders it (its content is already safe HTML).
      const s = entity as typeof entity & CitedStatus;
      return html`<blockquote>
  ${s.spoiler_text ? html`<p><strong>${s.spoiler_text}</strong></p>` : ""}${raw(s.content)}
  <p class="muted"><a href="${s.url ?? s.uri}">${day(s.created_at)}</a>${s.media_attachments.length > 0 ? ` · ${s.media_attachments.length} 🖼` : ""}${deleted.has(s.id) ? html` · <strong>${t.deleted}</strong>` : ""}</p>
</blockquote>`;
    });
    const categories = CATEGORIES.map(
      (cat) => html`<option value="${cat}"${cat === r.category ? " selected" : ""}>${t.categories[cat]}</option>`,
    );
    return c.html(
      adminPage(c, staff, {
        title: t.report(r.id),
        section: "reports",
        body: html`<table>
<tr><th>${t.target}</th><td>${acct(r.target_account)}${
          r.target_account && can(staff.user.role, "manageUsers")
            ? html` <a href="/admin/accounts/${r.target_account.id}?${new URLSearchParams({ report_id: r.id })}">${t.takeAction}</a>`
            : ""
        }</td></tr>
<tr><th>${t.reporter}</th><td>${acct(r.account)}${r.forwarded ? html` <span class="muted">(${t.forwarded})</span>` : ""}</td></tr>
<tr><th>${t.created}</th><td>${day(r.created_at)}</td></tr>
<tr><th>${t.category}</th><td>${t.categories[r.category as ReportCategory]}</td></tr>
<tr><th>${t.comment}</th><td>${r.comment}</td></tr>
${r.rules.length > 0 ? html`<tr><th>${t.rules}</th><td><ul>${r.rules.map((rule) => html`<li>${rule.text}</li>`)}</ul></td></tr>` : ""}
<tr><th>${t.assigned}</th><td>${r.assigned_account ? acct(r.assigned_account) : t.nobody}
  ${
    r.assigned_account?.id === staff.user.accountId
      ? button(staff, `${path}/unassign`, t.unassign)
      : button(staff, `${path}/assign_to_self`, t.assignToMe)
  }</td></tr>
<tr><th>${t.state}</th><td>${r.action_taken ? html`${t.resolved} (${acct(r.action_taken_by_account)})` : t.unresolved}</td></tr>
</table>
<h2>${t.statuses}</h2>
${statuses.length > 0 ? statuses : html`<p>${t.noStatuses}</p>`}
<form method="post" action="${path}/category">${formToken(staff)}
  <label for="category">${t.category}</label>
  <select id="category" name="category">${categories}</select>
  <div class="actions"><button type="submit">${t.changeCategory}</button></div>
</form>
<div class="actions">${r.action_taken ? button(staff, `${path}/reopen`, t.reopen) : button(staff, `${path}/resolve`, t.resolve)}</div>`,
      }),
    );
  }),
);

const action = (run: (staff: StaffVisit, id: string, rt: Parameters<typeof requireReport>[0]) => Promise<unknown>) =>
  adminRoute("manageReports", async (c, staff) => {
    const id = c.req.param("id") ?? "";
    await run(staff, id, c.get("rt"));
    return saved(c, `/admin/reports/${id}`);
  });

reportPages.post(
  "/admin/reports/:id/assign_to_self",
  action((staff, id, rt) => assignReport(rt, staff.actor, id, true)),
);
reportPages.post(
  "/admin/reports/:id/unassign",
  action((staff, id, rt) => assignReport(rt, staff.actor, id, false)),
);
reportPages.post(
  "/admin/reports/:id/resolve",
  action((staff, id, rt) => resolveReport(rt, staff.actor, id)),
);
reportPages.post(
  "/admin/reports/:id/reopen",
  action((staff, id, rt) => reopenReport(rt, staff.actor, id)),
);
reportPages.post(
  "/admin/reports/:id/category",
  action((staff, id, rt) =>
    updateReport(rt, staff.actor, id, {
      category: typeof staff.params.category === "string" ? staff.params.category : "",
    }),
  ),
);
