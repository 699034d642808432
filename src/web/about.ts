// The public pages about the server: /about, /privacy-policy, /terms-of-service.
import { html, raw } from "hono/html";
import { markdownToHtml } from "../domain/text/markdown.ts";
import { router } from "../http/hono.ts";
import type { Runtime } from "../runtime.ts";
import { rules } from "../services/instance/rules.ts";
import { currentTerms, privacyPolicy, siteText, termsVersions } from "../services/instance/texts.ts";
import { type Language, pickLanguage } from "./i18n.ts";
import { type Html, page } from "./layout.ts";

export const aboutPages = router();

/** What the home and about pages say of the server: its description, rules and contact. */
export async function serverFacts(rt: Runtime, lang: Language): Promise<Html> {
  const t = lang.t.home;
  const { description, contactEmail, contactUsername } = rt.config.site;
  const list = await rules(rt);
  const contact = [
    contactEmail ? html`<a href="mailto:${contactEmail}">${contactEmail}</a>` : "",
    contactUsername ? html`<a href="/@${contactUsername}">@${contactUsername}</a>` : "",
  ].filter((c) => c !== "");
  return html`${description ? html`<p class="description">${description}</p>` : ""}
${list.length > 0 ? html`<h2>${t.rules}</h2><ol class="rules">${list.map((r) => html`<li>${r.text}${r.hint ? html`<br><span class="muted">${r.hint}</span>` : ""}</li>`)}</ol>` : ""}
${contact.length > 0 ? html`<p class="contact">${t.contact}: ${contact.map((c, i) => html`${i > 0 ? ", " : ""}${c}`)}</p>` : ""}`;
}

aboutPages.get("/about", async (c) => {
  const rt = c.get("rt");
  const lang = pickLanguage(c.req.query("lang"), c.req.header("accept-language"));
  const t = lang.t.home;
  const about = await siteText(rt, "extended_description");
  return c.html(
    page(
      t.about,
      html`<h1>${rt.config.site.title}</h1>
${await serverFacts(rt, lang)}
${about ? html`<section>${raw(markdownToHtml(about.text))}</section>` : ""}
${rt.config.registrations.mode !== "none" ? html`<p><a href="/auth/sign_up">${t.signUp}</a></p>` : ""}
<p class="muted"><a href="/">${t.title}</a> · <a href="/privacy-policy">${t.privacy}</a></p>`,
      rt.config.site.title,
      { locale: lang.locale },
    ),
  );
});

aboutPages.get("/privacy-policy", async (c) => {
  const policy = await privacyPolicy(c.get("rt"));
  return c.html(
    page("Privacy policy", html`<h1>Privacy policy</h1>${raw(policy.content)}`, c.get("rt").config.site.title),
  );
});

aboutPages.get("/terms-of-service", async (c) => {
  const site = c.get("rt").config.site.title;
  const current = currentTerms(await termsVersions(c.get("rt")));
  if (!current) {
    return c.html(
      page(
        "Terms of service",
        html`<h1>Terms of service</h1><p>This server has published no terms of service.</p>`,
        site,
      ),
      404,
    );
  }
  return c.html(
    page(
      "Terms of service",
      html`<h1>Terms of service</h1><p class="muted">In effect from ${current.effective_date}</p>${raw(markdownToHtml(current.text))}`,
      site,
    ),
  );
});
