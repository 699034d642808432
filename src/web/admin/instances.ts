// The servers this one knows (Mastodon's "Federation" list): each with its accounts, its domain
// block and how contact with it goes, filtered by name; and one server's page, from which a
// moderator goes on to block it.
import { html } from "hono/html";
import { router } from "../../http/hono.ts";
import { getInstance, type Instance, listInstances } from "../../services/moderation/instances.ts";
import { bytes, minute, number } from "./format.ts";
import { adminPage } from "./frame.ts";
import { adminRoute, type StaffVisit } from "./guard.ts";

export const instancePages = router();

const PATH = "/admin/instances";
const PAGE_SIZE = 40;
/** Pages past this are not offered: narrow the list by name instead. */
const MAX_PAGE = 1000;

const text = (value: unknown) => (typeof value === "string" ? value.trim() : "");
const link = (domain: string) => `${PATH}/${encodeURIComponent(domain)}`;

function availability(staff: StaffVisit, i: Instance): string {
  const t = staff.lang.t.admin.instances;
  if (i.health.unavailableUntil) return t.unavailable(minute(i.health.unavailableUntil));
  return i.health.failures > 0 ? t.failing(i.health.failures) : t.available;
}

function moderation(staff: StaffVisit, i: Instance): string {
  const t = staff.lang.t.admin.instances;
  return i.policy.refused ? t.suspended : i.policy.silenced ? t.limited : t.noBlock;
}

const when = (staff: StaffVisit, d: Date | null) => (d ? minute(d) : staff.lang.t.admin.instances.never);

instancePages.get(
  PATH,
  adminRoute("manageFederation", async (c, staff) => {
    const t = staff.lang.t.admin.instances;
    const name = text(staff.params.name).slice(0, 253);
    const pageNumber = Math.min(Math.max(Number.parseInt(text(staff.params.page), 10) || 1, 1), MAX_PAGE);
    const { items, more } = await listInstances(
      c.get("rt"),
      staff.actor,
      { name },
      { offset: (pageNumber - 1) * PAGE_SIZE, limit: PAGE_SIZE },
    );
    const n = (value: number) => number(staff.lang, value);
    const rows = items.map(
      (i) => html`<tr>
  <td><a href="${link(i.domain)}">${i.domain}</a></td>
  <td>${n(i.accounts)}</td>
  <td>${n(i.health.failures)}</td>
  <td>${when(staff, i.health.lastDelivered)}</td>
  <td>${when(staff, i.health.lastReceived)}</td>
  <td>${availability(staff, i)}</td>
  <td>${moderation(staff, i)}</td>
</tr>`,
    );
    const next =
      more && pageNumber < MAX_PAGE
        ? html`<p><a href="${PATH}?${new URLSearchParams({ ...(name ? { name } : {}), page: String(pageNumber + 1) })}">${t.more}</a></p>`
        : "";
    return c.html(
      adminPage(c, staff, {
        title: t.title,
        section: "instances",
        body: html`<form method="get" action="${PATH}">
  <input type="hidden" name="lang" value="${staff.lang.locale}">
  <label for="name">${t.filter}</label>
  <input id="name" name="name" type="text" value="${name}">
  <div class="actions"><button type="submit">${t.search}</button></div>
</form>
${
  items.length === 0
    ? html`<p>${t.none}</p>`
    : html`<table><thead><tr><th>${t.domain}</th><th>${t.accounts}</th><th>${t.failures}</th><th>${t.lastDelivered}</th><th>${t.lastReceived}</th><th>${t.availability}</th><th>${t.moderation}</th></tr></thead>
<tbody>${rows}</tbody></table>`
}${next}`,
      }),
    );
  }),
);

instancePages.get(
  `${PATH}/:domain`,
  adminRoute("manageFederation", async (c, staff) => {
    const t = staff.lang.t.admin.instances;
    const i = await getInstance(c.get("rt"), staff.actor, c.req.param("domain") ?? "");
    const n = (value: number) => number(staff.lang, value);
    const blocked = i.policy.refused || i.policy.silenced;
    return c.html(
      adminPage(c, staff, {
        title: i.domain,
        section: "instances",
        body: html`<table><tbody>
<tr><th scope="row">${t.accounts}</th><td>${n(i.accounts)}</td></tr>
<tr><th scope="row">${t.statuses}</th><td>${n(i.figures.statuses)}</td></tr>
<tr><th scope="row">${t.followers}</th><td>${n(i.figures.followers)}</td></tr>
<tr><th scope="row">${t.following}</th><td>${n(i.figures.following)}</td></tr>
<tr><th scope="row">${t.reports}</th><td>${n(i.figures.reports)}</td></tr>
<tr><th scope="row">${t.media}</th><td>${bytes(i.figures.mediaBytes)}</td></tr>
<tr><th scope="row">${t.failures}</th><td>${n(i.health.failures)}</td></tr>
<tr><th scope="row">${t.lastDelivered}</th><td>${when(staff, i.health.lastDelivered)}</td></tr>
<tr><th scope="row">${t.lastReceived}</th><td>${when(staff, i.health.lastReceived)}</td></tr>
<tr><th scope="row">${t.availability}</th><td>${availability(staff, i)}</td></tr>
<tr><th scope="row">${t.moderation}</th><td>${moderation(staff, i)}</td></tr>
</tbody></table>
<div class="actions">${
          blocked
            ? html`<a href="/admin/domain_blocks">${t.blocks}</a>`
            : html`<a href="/admin/domain_blocks?${new URLSearchParams({ domain: i.domain })}">${t.block}</a>`
        }</div>`,
      }),
    );
  }),
);
