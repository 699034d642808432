// /settings/import: uploading a CSV file Mastodon (or Rookery) exported, merged with what the person
// has or replacing it, and the table of their imports, with how far each has got and the rows that
// failed and why. Jobs do the work (src/services/portability/imports.ts); while one runs, the page
// reloads itself every few seconds, without script.
import { html } from "hono/html";
import { unprocessable } from "../../domain/errors.ts";
import { isId } from "../../domain/ids.ts";
import { Upload } from "../../domain/uploads.ts";
import { router } from "../../http/hono.ts";
import { EXPORT_KINDS, isExportKind } from "../../services/portability/exports.ts";
import { MAX_IMPORT_BYTES } from "../../services/portability/import_file.ts";
import { createImport, failedRows, listImports } from "../../services/portability/imports.ts";
import { formToken } from "./frame.ts";
import { memberRoute, settingsPage } from "./settings_frame.ts";

export const importPages = router();

const PAGE = "/settings/import";
const REFRESH = html`<meta http-equiv="refresh" content="3">`;

/** Refuses a body far larger than any file allowed before it is read. */
importPages.use(PAGE, async (c, next) => {
  const length = Number(c.req.header("content-length") ?? 0);
  if (c.req.method === "POST" && length > MAX_IMPORT_BYTES + 64 * 1024) {
    return c.json({ error: `The file is too large (at most ${MAX_IMPORT_BYTES / 1024 / 1024} MB)` }, 413);
  }
  await next();
});

importPages.get(
  PAGE,
  memberRoute(
    async (c, v) => {
      const t = v.lang.t.portability;
      const imports = await listImports(c.get("rt"), v.user.accountId);
      const date = new Intl.DateTimeFormat(v.lang.locale, { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });
      const rows = imports.map(
        (i) => html`<tr>
  <td>${date.format(i.created_at)}</td>
  <td>${isExportKind(i.type) ? t.kinds[i.type] : i.type}<br><span class="muted">${i.file_name}</span></td>
  <td>${i.overwrite ? t.import.modes.overwrite : t.import.modes.merge}</td>
  <td>${t.import.states[i.state as keyof typeof t.import.states] ?? i.state}</td>
  <td><progress max="${i.total_rows}" value="${i.processed_rows}"></progress> ${i.processed_rows} / ${i.total_rows}</td>
  <td>${i.failed_rows > 0 ? html`<a href="${PAGE}/${i.id}">${i.failed_rows} · ${t.import.showFailures}</a>` : "0"}</td>
</tr>`,
      );
      const running = imports.some((i) => i.state !== "finished");
      return c.html(
        settingsPage(
          c,
          v,
          "import",
          html`${c.req.query("started") ? html`<p class="notice" role="status">${t.import.started}</p>` : ""}
<p>${t.import.lead}</p>
<form method="post" action="${PAGE}" enctype="multipart/form-data">${formToken(v.lang, v.csrf)}
  <label for="type">${t.import.type}</label>
  <select id="type" name="type">${EXPORT_KINDS.map((k) => html`<option value="${k}">${t.kinds[k]}</option>`)}</select>
  <label for="data">${t.import.file}</label>
  <input id="data" name="data" type="file" accept=".csv,text/csv" required>
  <fieldset><legend>${t.import.mode}</legend>
    <label><input type="radio" name="mode" value="merge" checked> ${t.import.merge}</label>
    <label><input type="radio" name="mode" value="overwrite"> ${t.import.overwrite}</label>
  </fieldset>
  <div class="actions"><button class="primary" type="submit">${t.import.submit}</button></div>
</form>
<h2>${t.import.history}</h2>
${
  imports.length === 0
    ? html`<p>${t.import.none}</p>`
    : html`<table><thead><tr><th>${t.import.date}</th><th>${t.import.type}</th><th>${t.import.mode}</th><th>${t.import.state}</th><th>${t.import.progress}</th><th>${t.import.failedRows}</th></tr></thead>
<tbody>${rows}</tbody></table>`
}`,
          undefined,
          { title: t.import.title, wide: true, head: running ? REFRESH : undefined },
        ),
      );
    },
    { functional: true },
  ),
);

importPages.post(
  PAGE,
  memberRoute(
    async (c, v) => {
      const p = v.params;
      if (!isExportKind(p.type)) throw unprocessable("Validation failed: Type is not included in the list");
      if (!(p.data instanceof Upload) || p.data.size === 0)
        throw unprocessable("Validation failed: Data can't be blank");
      await createImport(c.get("rt"), v.user.accountId, {
        kind: p.type,
        overwrite: p.mode === "overwrite",
        fileName: p.data.name,
        bytes: p.data.bytes,
      });
      return c.redirect(`${PAGE}?started=1`, 303);
    },
    { functional: true },
  ),
);

importPages.get(
  `${PAGE}/:id`,
  memberRoute(
    async (c, v) => {
      const t = v.lang.t.portability.import;
      const id = c.req.param("id");
      const failures = await failedRows(c.get("rt"), v.user.accountId, isId(id) ? id : "0");
      const rows = failures.map(
        (f) => html`<tr><td>${f.row_number}</td><td>${f.value}</td><td lang="en">${f.error}</td></tr>`,
      );
      return c.html(
        settingsPage(
          c,
          v,
          "import",
          html`<table><thead><tr><th>${t.row}</th><th>${t.entry}</th><th>${t.reason}</th></tr></thead><tbody>${rows}</tbody></table>
<p><a href="${PAGE}">${v.lang.t.portability.back}</a></p>`,
          undefined,
          { title: t.failuresTitle, wide: true },
        ),
      );
    },
    { functional: true },
  ),
);
