// What the pages of one's own account share: their frame, the hidden fields every form carries,
// text fields with their problems beside them, and the menu of the settings pages.
import { html } from "hono/html";
import { ApiError } from "../../domain/errors.ts";
import type { Ctx } from "../../http/hono.ts";
import type { Language } from "../i18n.ts";
import { type Html, page } from "../layout.ts";

/** The CSRF token and the page's language, in every form. */
export const formToken = (lang: Language, csrf: string) =>
  html`<input type="hidden" name="authenticity_token" value="${csrf}"><input type="hidden" name="lang" value="${lang.locale}">`;

/** A page of its own (sign-up, reset…) in the visitor's language. */
export function accountPage(c: Ctx, lang: Language, title: string, body: Html): Html {
  return page(title, html`<h1>${title}</h1>${body}`, c.get("rt").config.site.title, { locale: lang.locale });
}

/** A page that only says something; `error` marks it as a refusal. */
export function noticePage(c: Ctx, lang: Language, title: string, message: string, error = false): Html {
  return accountPage(
    c,
    lang,
    title,
    html`<p class="${error ? "error" : "notice"}" role="${error ? "alert" : "status"}">${message}</p>`,
  );
}

/** Problems by field, in the page's language. */
export type FieldProblems = Record<string, string[]>;

/** The problems of a service's 422 (its `details`, by their codes), in the page's language. */
export function problemsOf(lang: Language, error: unknown): FieldProblems | null {
  if (!(error instanceof ApiError) || error.status !== 422) return null;
  const details = error.body.details as Record<string, { error: string }[]> | undefined;
  if (!details) return null;
  const words = lang.t.account.fieldErrors;
  return Object.fromEntries(
    Object.entries(details).map(([field, errors]) => [field, errors.map((e) => words[e.error] ?? words.ERR_INVALID)]),
  );
}

/** A labelled input, with its hint and its problems (tied to it for screen readers). */
export function field(o: {
  name: string;
  label: string;
  type?: string;
  value?: string;
  hint?: string;
  problems?: FieldProblems | null;
  /** The field whose problems these are, when it differs from the input's name. */
  problemsOf?: string;
  autocomplete?: string;
  required?: boolean;
}) {
  const problems = o.problems?.[o.problemsOf ?? o.name] ?? [];
  const described = [o.hint ? `${o.name}-hint` : "", problems.length > 0 ? `${o.name}-error` : ""]
    .filter(Boolean)
    .join(" ");
  return html`<label for="${o.name}">${o.label}</label>
<input id="${o.name}" name="${o.name}" type="${o.type ?? "text"}"${o.value !== undefined ? html` value="${o.value}"` : ""}${o.autocomplete ? html` autocomplete="${o.autocomplete}"` : ""}${o.required === false ? "" : html` required`}${described ? html` aria-describedby="${described}"` : ""}${problems.length > 0 ? html` aria-invalid="true"` : ""}>
${o.hint ? html`<p class="muted" id="${o.name}-hint">${o.hint}</p>` : ""}
${problems.length > 0 ? html`<p class="error" id="${o.name}-error">${o.label}: ${problems.join(", ")}</p>` : ""}`;
}

/** A form's problem that belongs to no field. */
export const formProblem = (message: string | null | undefined) =>
  message ? html`<p class="error" role="alert">${message}</p>` : "";
