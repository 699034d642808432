// The audit log: what staff did, newest first, with who, what, on what, when and their note.
import { html } from "hono/html";
import { isId } from "../../domain/ids.ts";
import { router } from "../../http/hono.ts";
import { loadAccountViews } from "../../services/accounts/views.ts";
import { listAuditLog } from "../../services/moderation/audit_log.ts";
import { adminPage } from "./frame.ts";
import { adminRoute } from "./guard.ts";

export const auditLogPages = router();

const PATH = "/admin/audit_log";
const PAGE_SIZE = 40;

auditLogPages.get(
  PATH,
  adminRoute("viewAuditLog", async (c, staff) => {
    const t = staff.lang.t.admin.auditLog;
    const maxId = typeof staff.params.max_id === "string" && isId(staff.params.max_id) ? staff.params.max_id : null;
    const page = await listAuditLog(
      c.get("rt"),
      staff.actor,
      {},
      { maxId, sinceId: null, minId: null, limit: PAGE_SIZE },
    );
    const staffAccounts = await loadAccountViews(c.get("rt"), [...new Set(page.items.map((e) => e.account_id))]);
    const who = (id: string) => {
      const view = staffAccounts.get(id);
      return view ? `@${view.row.username}` : "—";
    };
    const older = page.next
      ? html`<p><a href="${PATH}?${new URLSearchParams({ max_id: page.next })}">${t.older}</a></p>`
      : "";
    return c.html(
      adminPage(c, staff, {
        title: t.title,
        section: "auditLog",
        body: html`${
          page.items.length === 0
            ? html`<p>${t.none}</p>`
            : html`<table><thead><tr><th>${t.when}</th><th>${t.who}</th><th>${t.action}</th><th>${t.target}</th><th>${t.note}</th></tr></thead><tbody>
${page.items.map(
  (e) =>
    html`<tr><td>${new Date(e.created_at).toISOString().slice(0, 16).replace("T", " ")}</td><td>${who(e.account_id)}</td><td><code>${e.action}</code></td><td>${e.target_type} ${e.human_identifier}</td><td>${e.text ?? ""}</td></tr>`,
)}
</tbody></table>`
        }${older}`,
      }),
    );
  }),
);
