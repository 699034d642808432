// The dashboard: Mastodon's measures and dimensions of the last 30 days and the retention of recent
// sign-ups, what waits for staff, the storage used, and the health of the job queue and of
// federation, as plain tables.
import { html } from "hono/html";
import { can } from "../../domain/roles.ts";
import { router } from "../../http/hono.ts";
import { DASHBOARD_DIMENSIONS, DASHBOARD_MEASURES, dashboard } from "../../services/moderation/dashboard.ts";
import { bytes, day, duration, minute, number } from "./format.ts";
import { adminPage } from "./frame.ts";
import { adminRoute } from "./guard.ts";

export const dashboardPages = router();

dashboardPages.get(
  "/admin/dashboard",
  adminRoute("viewDashboard", async (c, staff) => {
    const t = staff.lang.t.admin.dashboard;
    const d = await dashboard(c.get("rt"), staff.actor);
    const n = (value: number | string) => number(staff.lang, Number(value));
    const linked = (count: number, path: string, allowed: boolean) =>
      allowed ? html`<a href="${path}">${n(count)}</a>` : n(count);
    const measures = DASHBOARD_MEASURES.map((key) => {
      const m = d.measures.find((x) => x.key === key);
      return html`<tr><th scope="row">${t.measures[key]}</th><td>${n(m?.total ?? 0)}</td><td>${n(m?.previous_total ?? 0)}</td></tr>`;
    });
    const dimensions = DASHBOARD_DIMENSIONS.map((key) => {
      const data = d.dimensions.find((x) => x.key === key)?.data ?? [];
      return html`<h3>${t.dimensions[key]}</h3>
${
  data.length === 0
    ? html`<p class="muted">${t.noData}</p>`
    : html`<table class="dimension"><tbody>${data.map((v) => html`<tr><th scope="row">${v.human_key}</th><td>${/^\d+$/.test(v.value) ? n(v.value) : v.value}</td></tr>`)}</tbody></table>`
}`;
    });
    const later = Math.max(0, ...d.retention.map((c) => c.data.length - 1));
    const percent = (rate: number) => `${Math.round(rate * 100)} %`;
    const cohorts = d.retention.map(
      (c) =>
        html`<tr><th scope="row">${c.period.slice(0, 7)}</th><td>${n(c.data[0]?.value ?? 0)}</td>${Array.from({ length: later }, (_, i) => html`<td>${c.data[i + 1] ? percent(c.data[i + 1]!.rate) : ""}</td>`)}</tr>`,
    );
    const space = d.space.map(
      (s) =>
        html`<tr><th scope="row">${s.key === "media" ? t.media : html`${t.database} (${s.human_key})`}</th><td>${bytes(Number(s.value))}</td></tr>`,
    );
    const jobs = d.jobs.map(
      (j) =>
        html`<tr><td><code>${j.type}</code></td><td>${n(j.waiting)}</td><td>${n(j.due)}</td><td>${j.due > 0 ? duration(j.oldestDueSeconds) : "—"}</td><td>${n(j.retrying)}</td><td>${n(j.dead)}</td></tr>`,
    );
    const it = staff.lang.t.admin.instances;
    const servers = d.failingServers.map(
      (s) =>
        html`<tr><td>${can(staff.user.role, "manageFederation") ? html`<a href="/admin/instances/${encodeURIComponent(s.host)}">${s.host}</a>` : s.host}</td><td>${n(s.failures)}</td><td>${s.unavailableUntil ? it.unavailable(minute(s.unavailableUntil)) : it.failing(s.failures)}</td></tr>`,
    );
    return c.html(
      adminPage(c, staff, {
        title: t.title,
        section: "dashboard",
        body: html`<h2>${t.waiting}</h2>
<table id="waiting"><tbody>
<tr><th scope="row">${t.openReports}</th><td>${linked(d.openReports, "/admin/reports", can(staff.user.role, "manageReports"))}</td></tr>
<tr><th scope="row">${t.pendingAccounts}</th><td>${linked(d.pendingAccounts, "/admin/accounts?status=pending", can(staff.user.role, "manageUsers"))}</td></tr>
</tbody></table>
<h2>${t.period(day(d.range.start), day(d.range.end))}</h2>
<table id="measures"><thead><tr><th>${t.measure}</th><th>${t.total}</th><th>${t.previous}</th></tr></thead>
<tbody>${measures}</tbody></table>
${dimensions}
<h2>${t.retention}</h2>
<table id="retention"><thead><tr><th>${t.cohort}</th><th>${t.signUps}</th>${Array.from({ length: later }, (_, i) => html`<th>${t.later(i + 1)}</th>`)}</tr></thead>
<tbody>${cohorts}</tbody></table>
<h2>${t.storage}</h2>
<table id="storage"><tbody>${space}</tbody></table>
<h2>${t.queue}</h2>
${
  jobs.length === 0
    ? html`<p>${t.queueEmpty}</p>`
    : html`<table id="jobs"><thead><tr><th>${t.jobType}</th><th>${t.waitingJobs}</th><th>${t.dueJobs}</th><th>${t.oldestDue}</th><th>${t.retrying}</th><th>${t.dead}</th></tr></thead>
<tbody>${jobs}</tbody></table>`
}
<h2>${t.federation}</h2>
${
  servers.length === 0
    ? html`<p>${t.noFailures}</p>`
    : html`<table id="failing"><thead><tr><th>${t.server}</th><th>${t.failures}</th><th>${t.breaker}</th></tr></thead>
<tbody>${servers}</tbody></table>`
}`,
      }),
    );
  }),
);
