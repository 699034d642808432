// Domain blocks: what this server does with whole remote servers (the rows `rookery domains` manages).
import { html } from "hono/html";
import { router } from "../../http/hono.ts";
import { blockDomain, domainBlocks, type Severity, unblockDomain } from "../../services/moderation/domain_blocks.ts";
import { adminPage, button, formToken } from "./frame.ts";
import { adminRoute, saved } from "./guard.ts";

export const domainPages = router();

const SEVERITIES: Severity[] = ["silence", "suspend", "noop"];
const PATH = "/admin/domain_blocks";

const text = (value: unknown) => (typeof value === "string" ? value : "");

domainPages.get(
  PATH,
  adminRoute("manageFederation", async (c, staff) => {
    const t = staff.lang.t.admin.domains;
    const blocks = await domainBlocks(c.var.rt);
    const rows = blocks.map(
      (b) => html`<tr>
  <td>${b.domain}</td>
  <td>${t.severities[b.severity]}${b.reject_media ? html`, ${t.rejectMedia.toLowerCase()}` : ""}</td>
  <td>${b.public_comment ?? ""}</td>
  <td>${button(staff, `${PATH}/remove`, t.unblock, { domain: b.domain })}</td>
</tr>`,
    );
    return c.html(
      adminPage(c, staff, {
        title: t.title,
        section: "domains",
        body: html`${
          blocks.length === 0
            ? html`<p>${t.none}</p>`
            : html`<table><thead><tr><th>${t.domain}</th><th>${t.severity}</th><th>${t.publicComment}</th><th></th></tr></thead>
<tbody>${rows}</tbody></table>`
        }
<h2>${t.block}</h2>
<form method="post" action="${PATH}">${formToken(staff)}
  <label for="domain">${t.domain}</label>
  <input id="domain" name="domain" type="text" required placeholder="example.com">
  <label for="severity">${t.severity}</label>
  <select id="severity" name="severity">${SEVERITIES.map((s) => html`<option value="${s}">${t.severities[s]}</option>`)}</select>
  <p><label><input type="checkbox" name="reject_media" value="1"> ${t.rejectMedia}</label></p>
  <p><label><input type="checkbox" name="obfuscate" value="1"> ${t.obfuscate}</label></p>
  <label for="public_comment">${t.publicComment}</label>
  <input id="public_comment" name="public_comment" type="text">
  <div class="actions"><button class="primary" type="submit">${t.block}</button></div>
</form>`,
      }),
    );
  }),
);

domainPages.post(
  PATH,
  adminRoute("manageFederation", async (c, staff) => {
    const p = staff.params;
    const severity = SEVERITIES.find((s) => s === p.severity) ?? "suspend";
    await blockDomain(c.var.rt, {
      domain: text(p.domain),
      severity,
      rejectMedia: p.reject_media === "1",
      obfuscate: p.obfuscate === "1",
      publicComment: text(p.public_comment).trim() || null,
    });
    return saved(c, PATH);
  }),
);

domainPages.post(
  `${PATH}/remove`,
  adminRoute("manageFederation", async (c, staff) => {
    await unblockDomain(c.var.rt, text(staff.params.domain));
    return saved(c, PATH);
  }),
);
