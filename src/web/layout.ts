// The frame of Rookery's few HTML pages: plain, accessible, readable on a phone.
import { html, raw } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";

export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

const STYLE = `
  :root { color-scheme: light dark; --accent: #5b4fd6; }
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; display: flex; justify-content: center; }
  main { width: 100%; max-width: 40rem; padding: 2rem 1.25rem; }
  h1 { font-size: 1.4rem; margin: 0 0 1rem; }
  label { display: block; font-weight: 600; margin: 1rem 0 .25rem; }
  input[type=email], input[type=password], input[type=text], input[type=number], input[type=url] {
    width: 100%; box-sizing: border-box; padding: .6rem; font: inherit; border: 1px solid #888; border-radius: .4rem;
  }
  button { font: inherit; padding: .6rem 1.2rem; border-radius: .4rem; border: 1px solid var(--accent); cursor: pointer; }
  button.primary { background: var(--accent); color: #fff; }
  .actions { display: flex; gap: .75rem; margin-top: 1.5rem; flex-wrap: wrap; }
  .error { border-left: 4px solid #c0392b; padding: .5rem .75rem; background: #c0392b22; }
  .notice { border-left: 4px solid var(--accent); padding: .5rem .75rem; background: #5b4fd622; }
  code.secret { display: block; font-size: 1.1rem; padding: .75rem; word-break: break-all; border: 1px dashed #888; }
  ul.scopes { padding-left: 1.25rem; }
  .muted { opacity: .75; font-size: .9rem; }
  main.wide { max-width: 64rem; }
  nav.admin { display: flex; gap: 1rem; flex-wrap: wrap; align-items: center; margin-bottom: 1.5rem; }
  nav.admin a[aria-current] { font-weight: 700; }
  table { border-collapse: collapse; width: 100%; }
  th, td { text-align: left; padding: .4rem .5rem; border-bottom: 1px solid #8884; vertical-align: top; }
  textarea, select { width: 100%; box-sizing: border-box; padding: .6rem; font: inherit; border: 1px solid #888; border-radius: .4rem; }
  textarea { min-height: 6rem; }
  form.inline { display: inline; }
  .swatch { display: inline-block; width: .8em; height: .8em; border-radius: 50%; }
  blockquote { margin: .5rem 0; padding: .5rem .75rem; border-left: 4px solid #8888; }
`;

/**
 * A page in `locale` (English unless told); `onload` runs a line of script once it has loaded; `wide`
 * pages (the web admin's tables) use the width of a desktop screen; `head` adds to the document's head
 * (links, a page's own style).
 */
export function page(
  title: string,
  body: Html,
  siteTitle: string,
  o: { locale?: string; onload?: string; wide?: boolean; head?: Html } = {},
): Html {
  return html`<!doctype html>
<html lang="${o.locale ?? "en"}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title} · ${siteTitle}</title>
<link rel="icon" href="/favicon.ico" sizes="any">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<style>${raw(STYLE)}</style>
${o.head ?? ""}
</head>
<body${o.onload ? html` onload="${o.onload}"` : ""}><main${o.wide ? raw(' class="wide"') : ""}>
<p class="muted"><a href="/">${siteTitle}</a></p>
${body}
</main></body>
</html>`;
}
