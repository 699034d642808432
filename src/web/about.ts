// The public pages about the server: /about, /privacy-policy, /terms-of-service.
import { html, raw } from "hono/html";
import { markdownToHtml } from "../domain/text/markdown.ts";
import { router } from "../http/hono.ts";
import { rules } from "../services/instance/rules.ts";
import { currentTerms, privacyPolicy, siteText, termsVersions } from "../services/instance/texts.ts";
import { page } from "./layout.ts";

export const aboutPages = router();

aboutPages.get("/about", async (c) => {
  const rt = c.get("rt");
  const about = await siteText(rt, "extended_description");
  const list = await rules(rt);
  return c.html(
    page(
      "About",
      html`<h1>${rt.config.site.title}</h1>
<p>${rt.config.site.description}</p>
${about ? html`<section>${raw(markdownToHtml(about.text))}</section>` : ""}
${list.length > 0 ? html`<h2>Rules</h2><ol>${list.map((r) => html`<li>${r.text}${r.hint ? html`<br><span class="muted">${r.hint}</span>` : ""}</li>`)}</ol>` : ""}
${rt.config.site.contactEmail ? html`<p>Contact: <a href="mailto:${rt.config.site.contactEmail}">${rt.config.site.contactEmail}</a></p>` : ""}
${rt.config.registrations.mode !== "none" ? html`<p><a href="/auth/sign_up">Create an account</a></p>` : ""}
<p class="muted"><a href="/privacy-policy">Privacy policy</a></p>`,
      rt.config.site.title,
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
