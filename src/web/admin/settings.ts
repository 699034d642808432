// Server settings: name, description, contact, who can sign up, the rules, and the about, privacy
// and terms pages (the texts `rookery site` edits). Every change reaches the instance documents at
// once: the services drop the prepared answers.
import { html } from "hono/html";
import type { RegistrationsMode } from "../../config.ts";
import { notFound } from "../../domain/errors.ts";
import { isId } from "../../domain/ids.ts";
import { can } from "../../domain/roles.ts";
import { router } from "../../http/hono.ts";
import { addRule, removeRule, rules } from "../../services/instance/rules.ts";
import { REGISTRATIONS_MODES, saveServerSettings, serverSettings } from "../../services/instance/settings.ts";
import { publishTerms, setSiteText, siteText, termsVersions } from "../../services/instance/texts.ts";
import { adminPage, button, formToken } from "./frame.ts";
import { adminRoute, type StaffVisit, saved } from "./guard.ts";

export const settingsPages = router();

const PATH = "/admin/settings";
const text = (value: unknown) => (typeof value === "string" ? value : "");

function rulesSection(staff: StaffVisit, list: Awaited<ReturnType<typeof rules>>) {
  const t = staff.lang.t.admin.settings;
  return html`<h2 id="rules">${t.rules}</h2>
${
  list.length === 0
    ? html`<p>${t.noRules}</p>`
    : html`<ol>${list.map(
        (r) =>
          html`<li>${r.text}${r.hint ? html` <span class="muted">${r.hint}</span>` : ""} ${button(staff, `/admin/rules/${r.id}/remove`, t.removeRule)}</li>`,
      )}</ol>`
}
<form method="post" action="/admin/rules">${formToken(staff)}
  <label for="rule_text">${t.ruleText}</label>
  <input id="rule_text" name="text" type="text" required>
  <label for="rule_hint">${t.ruleHint}</label>
  <input id="rule_hint" name="hint" type="text">
  <div class="actions"><button type="submit">${t.addRule}</button></div>
</form>`;
}

settingsPages.get(
  PATH,
  adminRoute("manageSettings", async (c, staff) => {
    const t = staff.lang.t.admin.settings;
    const rt = c.get("rt");
    const s = serverSettings(rt);
    const [about, privacy, terms, list] = await Promise.all([
      siteText(rt, "extended_description"),
      siteText(rt, "privacy_policy"),
      termsVersions(rt),
      rules(rt),
    ]);
    const latest = terms.at(-1);
    const modes = REGISTRATIONS_MODES.map(
      (m) => html`<option value="${m}"${m === s.registrationsMode ? " selected" : ""}>${t.modes[m]}</option>`,
    );
    return c.html(
      adminPage(c, staff, {
        title: t.title,
        section: "settings",
        body: html`<form method="post" action="${PATH}">${formToken(staff)}
  <label for="title">${t.siteTitle}</label>
  <input id="title" name="title" type="text" required value="${s.title}">
  <label for="description">${t.description}</label>
  <textarea id="description" name="description">${s.description}</textarea>
  <label for="contact_email">${t.contactEmail}</label>
  <input id="contact_email" name="contact_email" type="email" value="${s.contactEmail}">
  <label for="contact_username">${t.contactUsername}</label>
  <input id="contact_username" name="contact_username" type="text" value="${s.contactUsername ?? ""}">
  <label for="registrations_mode">${t.registrations}</label>
  <select id="registrations_mode" name="registrations_mode">${modes}</select>
  <div class="actions"><button class="primary" type="submit">${t.save}</button></div>
</form>
${can(staff.user.role, "manageRules") ? rulesSection(staff, list) : ""}
<h2 id="texts">${t.texts}</h2>
<form method="post" action="${PATH}/texts">${formToken(staff)}
  <label for="extended_description">${t.about}</label>
  <textarea id="extended_description" name="extended_description" rows="8">${about?.text ?? ""}</textarea>
  <label for="privacy_policy">${t.privacy}</label>
  <textarea id="privacy_policy" name="privacy_policy" rows="8">${privacy?.text ?? ""}</textarea>
  <div class="actions"><button type="submit">${t.save}</button></div>
</form>
<form method="post" action="${PATH}/terms">${formToken(staff)}
  <label for="terms_of_service">${t.terms}</label>
  <textarea id="terms_of_service" name="text" rows="8" required>${latest?.text ?? ""}</textarea>
  <label for="effective_date">${t.effectiveDate}</label>
  <input id="effective_date" name="effective_date" type="date" required value="${latest?.effective_date ?? new Date().toISOString().slice(0, 10)}">
  <div class="actions"><button type="submit">${t.publish}</button></div>
</form>`,
      }),
    );
  }),
);

settingsPages.post(
  PATH,
  adminRoute("manageSettings", async (c, staff) => {
    const p = staff.params;
    await saveServerSettings(c.get("rt"), staff.actor, {
      title: text(p.title),
      description: text(p.description),
      contactEmail: text(p.contact_email),
      contactUsername: text(p.contact_username),
      registrationsMode: text(p.registrations_mode) as RegistrationsMode,
    });
    return saved(c, PATH);
  }),
);

settingsPages.post(
  `${PATH}/texts`,
  adminRoute("manageSettings", async (c, staff) => {
    const rt = c.get("rt");
    for (const key of ["extended_description", "privacy_policy"] as const) {
      const value = text(staff.params[key]);
      // An untouched text is left as it is (and keeps its date).
      if (value !== ((await siteText(rt, key))?.text ?? "")) await setSiteText(rt, key, value, staff.actor);
    }
    return saved(c, PATH);
  }),
);

settingsPages.post(
  `${PATH}/terms`,
  adminRoute("manageSettings", async (c, staff) => {
    await publishTerms(c.get("rt"), text(staff.params.text), text(staff.params.effective_date), staff.actor);
    return saved(c, PATH);
  }),
);

settingsPages.post(
  "/admin/rules",
  adminRoute("manageRules", async (c, staff) => {
    await addRule(c.get("rt"), text(staff.params.text), text(staff.params.hint), staff.actor);
    return saved(c, PATH);
  }),
);

settingsPages.post(
  "/admin/rules/:id/remove",
  adminRoute("manageRules", async (c, staff) => {
    const id = c.req.param("id") ?? "";
    if (!isId(id)) throw notFound();
    await removeRule(c.get("rt"), id, staff.actor);
    return saved(c, PATH);
  }),
);
