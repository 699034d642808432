// Federation: the domain blocks (what this server does with whole remote servers, the rows
// `rookery domains` manages) and the domain allows, through the moderation services, which keep
// the audit log and sever what a block cuts.
import { html } from "hono/html";
import { isId } from "../../domain/ids.ts";
import { router } from "../../http/hono.ts";
import {
  createDomainAllow,
  createDomainBlock,
  deleteDomainAllow,
  deleteDomainBlock,
  listDomainAllows,
  listDomainBlocks,
  SEVERITIES,
} from "../../services/moderation/admin_domain_blocks.ts";
import { adminPage, button, formToken } from "./frame.ts";
import { adminRoute, saved } from "./guard.ts";

export const domainPages = router();

const BLOCKS = "/admin/domain_blocks";
const ALLOWS = "/admin/domain_allows";
// Operators block tens or hundreds of domains, seldom more: one page holds them.
const LIST = { maxId: null, sinceId: null, minId: null, limit: 1000 };

const text = (value: unknown) => (typeof value === "string" ? value.trim() : "");
const id = (value: string | undefined) => (value && isId(value) ? value : "0");

domainPages.get(
  BLOCKS,
  adminRoute("manageFederation", async (c, staff) => {
    const t = staff.lang.t.admin.domains;
    const blocks = (await listDomainBlocks(c.get("rt"), staff.actor, LIST)).items.sort((a, b) =>
      a.domain.localeCompare(b.domain),
    );
    const rows = blocks.map(
      (b) => html`<tr>
  <td>${b.domain}</td>
  <td>${t.severities[b.severity]}${b.reject_media ? html`, ${t.rejectMedia.toLowerCase()}` : ""}${b.reject_reports ? html`, ${t.rejectReports.toLowerCase()}` : ""}</td>
  <td>${b.public_comment ?? ""}${b.private_comment ? html`<br><span class="muted">${b.private_comment}</span>` : ""}</td>
  <td>${button(staff, `${BLOCKS}/${b.id}/remove`, t.unblock)}</td>
</tr>`,
    );
    return c.html(
      adminPage(c, staff, {
        title: t.title,
        section: "domains",
        body: html`<p><a href="${BLOCKS}" aria-current="page">${t.title}</a> · <a href="${ALLOWS}">${t.allowsTitle}</a></p>
${
  blocks.length === 0
    ? html`<p>${t.none}</p>`
    : html`<table><thead><tr><th>${t.domain}</th><th>${t.severity}</th><th>${t.publicComment}</th><th></th></tr></thead>
<tbody>${rows}</tbody></table>`
}
<h2>${t.block}</h2>
<form method="post" action="${BLOCKS}">${formToken(staff)}
  <label for="domain">${t.domain}</label>
  <input id="domain" name="domain" type="text" required placeholder="example.com" value="${text(staff.params.domain)}">
  <label for="severity">${t.severity}</label>
  <select id="severity" name="severity">${SEVERITIES.map((s) => html`<option value="${s}"${s === "silence" ? " selected" : ""}>${t.severities[s]}</option>`)}</select>
  <p><label><input type="checkbox" name="reject_media" value="1"> ${t.rejectMedia}</label></p>
  <p><label><input type="checkbox" name="reject_reports" value="1"> ${t.rejectReports}</label></p>
  <p><label><input type="checkbox" name="obfuscate" value="1"> ${t.obfuscate}</label></p>
  <label for="public_comment">${t.publicComment}</label>
  <input id="public_comment" name="public_comment" type="text">
  <label for="private_comment">${t.privateComment}</label>
  <input id="private_comment" name="private_comment" type="text">
  <div class="actions"><button class="primary" type="submit">${t.block}</button></div>
</form>`,
      }),
    );
  }),
);

domainPages.post(
  BLOCKS,
  adminRoute("manageFederation", async (c, staff) => {
    const p = staff.params;
    await createDomainBlock(c.get("rt"), staff.actor, {
      domain: text(p.domain),
      severity: text(p.severity),
      rejectMedia: p.reject_media === "1",
      rejectReports: p.reject_reports === "1",
      obfuscate: p.obfuscate === "1",
      publicComment: text(p.public_comment) || null,
      privateComment: text(p.private_comment) || null,
    });
    return saved(c, BLOCKS);
  }),
);

domainPages.post(
  `${BLOCKS}/:id/remove`,
  adminRoute("manageFederation", async (c, staff) => {
    await deleteDomainBlock(c.get("rt"), staff.actor, id(c.req.param("id")));
    return saved(c, BLOCKS);
  }),
);

domainPages.get(
  ALLOWS,
  adminRoute("manageFederation", async (c, staff) => {
    const t = staff.lang.t.admin.domains;
    const allows = (await listDomainAllows(c.get("rt"), staff.actor, LIST)).items.sort((a, b) =>
      a.domain.localeCompare(b.domain),
    );
    return c.html(
      adminPage(c, staff, {
        title: t.allowsTitle,
        section: "domains",
        body: html`<p><a href="${BLOCKS}">${t.title}</a> · <a href="${ALLOWS}" aria-current="page">${t.allowsTitle}</a></p>
<p class="muted">${t.allowsLead}</p>
${
  allows.length === 0
    ? html`<p>${t.noAllows}</p>`
    : html`<table><tbody>${allows.map((a) => html`<tr><td>${a.domain}</td><td>${button(staff, `${ALLOWS}/${a.id}/remove`, t.disallow)}</td></tr>`)}</tbody></table>`
}
<form method="post" action="${ALLOWS}">${formToken(staff)}
  <label for="allow_domain">${t.domain}</label>
  <input id="allow_domain" name="domain" type="text" required placeholder="example.com">
  <div class="actions"><button class="primary" type="submit">${t.allow}</button></div>
</form>`,
      }),
    );
  }),
);

domainPages.post(
  ALLOWS,
  adminRoute("manageFederation", async (c, staff) => {
    await createDomainAllow(c.get("rt"), staff.actor, { domain: text(staff.params.domain) });
    return saved(c, ALLOWS);
  }),
);

domainPages.post(
  `${ALLOWS}/:id/remove`,
  adminRoute("manageFederation", async (c, staff) => {
    await deleteDomainAllow(c.get("rt"), staff.actor, id(c.req.param("id")));
    return saved(c, ALLOWS);
  }),
);
