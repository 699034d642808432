// Blocks applied at sign-up and sign-in: IP addresses and networks, and email domains, through the
// moderation services (which keep the audit log).
import { html } from "hono/html";
import { isId } from "../../domain/ids.ts";
import { router } from "../../http/hono.ts";
import {
  createEmailDomainBlock,
  deleteEmailDomainBlock,
  listEmailDomainBlocks,
} from "../../services/moderation/email_domain_blocks.ts";
import { createIpBlock, deleteIpBlock, listIpBlocks, SEVERITIES } from "../../services/moderation/ip_blocks.ts";
import { adminPage, button, formToken } from "./frame.ts";
import { adminRoute, type StaffVisit, saved } from "./guard.ts";

export const blockPages = router();

const IPS = "/admin/ip_blocks";
const EMAILS = "/admin/email_domain_blocks";
const LIST = { maxId: null, sinceId: null, minId: null, limit: 1000 };
const DAY = 86_400;
/** How long a new IP block lasts, in seconds (Mastodon's choices); "" for ever. */
const DURATIONS = ["", String(DAY), String(14 * DAY), String(30 * DAY), String(182 * DAY), String(365 * DAY)];

const text = (value: unknown) => (typeof value === "string" ? value.trim() : "");
const id = (value: string | undefined) => (value && isId(value) ? value : "0");

function tabs(staff: StaffVisit, current: string) {
  const t = staff.lang.t.admin.blocks;
  const link = (path: string, label: string) =>
    html`<a href="${path}"${path === current ? html` aria-current="page"` : ""}>${label}</a>`;
  return html`<p>${link(IPS, t.ipTitle)} · ${link(EMAILS, t.emailTitle)}</p>`;
}

blockPages.get(
  IPS,
  adminRoute("manageBlocks", async (c, staff) => {
    const t = staff.lang.t.admin.blocks;
    const blocks = (await listIpBlocks(c.get("rt"), staff.actor, LIST)).items;
    return c.html(
      adminPage(c, staff, {
        title: t.ipTitle,
        section: "blocks",
        body: html`${tabs(staff, IPS)}
${
  blocks.length === 0
    ? html`<p>${t.noIps}</p>`
    : html`<table><thead><tr><th>${t.ip}</th><th>${t.severity}</th><th>${t.comment}</th><th>${t.expires}</th><th></th></tr></thead><tbody>
${blocks.map(
  (b) =>
    html`<tr><td>${b.ip}</td><td>${t.severities[b.severity]}</td><td>${b.comment}</td><td>${b.expires_at ? new Date(b.expires_at).toISOString().slice(0, 10) : t.never}</td><td>${button(staff, `${IPS}/${b.id}/remove`, t.remove)}</td></tr>`,
)}
</tbody></table>`
}
<h2>${t.addIp}</h2>
<form method="post" action="${IPS}">${formToken(staff)}
  <label for="ip">${t.ip}</label>
  <input id="ip" name="ip" type="text" required placeholder="192.0.2.0/24">
  <label for="severity">${t.severity}</label>
  <select id="severity" name="severity">${SEVERITIES.map((s) => html`<option value="${s}">${t.severities[s]}</option>`)}</select>
  <label for="expires_in">${t.expires}</label>
  <select id="expires_in" name="expires_in">${DURATIONS.map((d, i) => html`<option value="${d}">${t.durations[i]}</option>`)}</select>
  <label for="comment">${t.comment}</label>
  <input id="comment" name="comment" type="text">
  <div class="actions"><button class="primary" type="submit">${t.addIp}</button></div>
</form>`,
      }),
    );
  }),
);

blockPages.post(
  IPS,
  adminRoute("manageBlocks", async (c, staff) => {
    const p = staff.params;
    const expires = DURATIONS.includes(text(p.expires_in)) ? text(p.expires_in) : "";
    await createIpBlock(c.get("rt"), staff.actor, {
      ip: text(p.ip),
      severity: text(p.severity),
      comment: text(p.comment),
      expiresIn: expires ? Number(expires) : null,
    });
    return saved(c, IPS);
  }),
);

blockPages.post(
  `${IPS}/:id/remove`,
  adminRoute("manageBlocks", async (c, staff) => {
    await deleteIpBlock(c.get("rt"), staff.actor, id(c.req.param("id")));
    return saved(c, IPS);
  }),
);

blockPages.get(
  EMAILS,
  adminRoute("manageBlocks", async (c, staff) => {
    const t = staff.lang.t.admin.blocks;
    const blocks = (await listEmailDomainBlocks(c.get("rt"), staff.actor, LIST)).items;
    return c.html(
      adminPage(c, staff, {
        title: t.emailTitle,
        section: "blocks",
        body: html`${tabs(staff, EMAILS)}
${
  blocks.length === 0
    ? html`<p>${t.noEmails}</p>`
    : html`<table><tbody>
${blocks.map(
  (b) =>
    html`<tr><td>${b.domain}</td><td>${b.allow_with_approval ? t.withApproval : t.refused}</td><td>${button(staff, `${EMAILS}/${b.id}/remove`, t.remove)}</td></tr>`,
)}
</tbody></table>`
}
<h2>${t.addEmail}</h2>
<form method="post" action="${EMAILS}">${formToken(staff)}
  <label for="email_domain">${t.domain}</label>
  <input id="email_domain" name="domain" type="text" required placeholder="spam.example">
  <p><label><input type="checkbox" name="allow_with_approval" value="1"> ${t.allowWithApproval}</label></p>
  <div class="actions"><button class="primary" type="submit">${t.addEmail}</button></div>
</form>`,
      }),
    );
  }),
);

blockPages.post(
  EMAILS,
  adminRoute("manageBlocks", async (c, staff) => {
    await createEmailDomainBlock(c.get("rt"), staff.actor, {
      domain: text(staff.params.domain),
      allowWithApproval: staff.params.allow_with_approval === "1",
    });
    return saved(c, EMAILS);
  }),
);

blockPages.post(
  `${EMAILS}/:id/remove`,
  adminRoute("manageBlocks", async (c, staff) => {
    await deleteEmailDomainBlock(c.get("rt"), staff.actor, id(c.req.param("id")));
    return saved(c, EMAILS);
  }),
);
