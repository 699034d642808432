// /settings/export: the CSV files of a person's follows, lists, blocks, mutes, blocked domains and
// bookmarks, in Mastodon's format (src/services/portability/exports.ts), each streamed as it is
// read so that a large account's file never sits whole in memory.
import { html } from "hono/html";
import { isId } from "../../domain/ids.ts";
import { router } from "../../http/hono.ts";
import { mediaStorage } from "../../media/storage.ts";
import { archiveFileKey, latestArchive, requestArchive } from "../../services/portability/archive.ts";
import {
  EXPORT_FILE_NAMES,
  EXPORT_KINDS,
  exportCounts,
  exportLines,
  isExportKind,
} from "../../services/portability/exports.ts";
import { formToken } from "./frame.ts";
import { memberRoute, settingsPage } from "./settings_frame.ts";

export const exportPages = router();

/** Lines are sent in pieces of about this many bytes. */
const PIECE = 32 * 1024;

exportPages.get(
  "/settings/export",
  memberRoute(
    async (c, v) => {
      const t = v.lang.t.portability;
      const counts = await exportCounts(c.get("rt"), v.user.accountId);
      const rows = EXPORT_KINDS.map(
        (kind) => html`<tr><td>${t.kinds[kind]}</td><td>${counts[kind]}</td>
<td><a href="/settings/export/${kind}.csv" download="${EXPORT_FILE_NAMES[kind]}">${t.export.download}</a></td></tr>`,
      );
      const archive = await latestArchive(c.get("rt").db, v.user.accountId);
      const date = new Intl.DateTimeFormat(v.lang.locale, { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });
      const size = (bytes: number) =>
        new Intl.NumberFormat(v.lang.locale, { style: "unit", unit: "megabyte", maximumFractionDigits: 1 }).format(
          bytes / 1e6,
        );
      const making = archive !== undefined && !archive.file_key && !archive.failed_at;
      const state = !archive
        ? ""
        : archive.file_key
          ? html`<p><a href="/settings/export/archive/${archive.id}">${t.archive.download(date.format(archive.created_at), size(Number(archive.file_size)))}</a></p>`
          : archive.failed_at
            ? html`<p class="error" role="alert">${t.archive.failed(date.format(archive.created_at))}</p>`
            : html`<p role="status"><progress max="${archive.statuses_total}" value="${archive.statuses_done}"></progress> ${t.archive.making(archive.statuses_done, archive.statuses_total)}</p>`;
      return c.html(
        settingsPage(
          c,
          v,
          "export",
          html`<p>${t.export.lead}</p>
<table><thead><tr><th>${t.export.data}</th><th>${t.export.entries}</th><th></th></tr></thead><tbody>${rows}</tbody></table>
<h2>${t.archive.title}</h2>
<p>${t.archive.lead}</p>
${state}
<form method="post" action="/settings/export/archive">${formToken(v.lang, v.csrf)}<div class="actions"><button type="submit">${t.archive.request}</button></div></form>`,
          undefined,
          {
            title: t.export.title,
            wide: true,
            // While the archive is being made, the page reloads itself to show how far it has got.
            head: making ? html`<meta http-equiv="refresh" content="5">` : undefined,
          },
        ),
      );
    },
    { functional: true },
  ),
);

exportPages.get(
  "/settings/export/:file",
  memberRoute(
    async (c, v) => {
      const kind = (c.req.param("file") ?? "").replace(/\.csv$/, "");
      if (!isExportKind(kind)) return c.notFound();
      const lines = exportLines(c.get("rt"), v.user.accountId, kind);
      const encoder = new TextEncoder();
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          let piece = "";
          while (piece.length < PIECE) {
            const next = await lines.next();
            if (next.done) break;
            piece += next.value;
          }
          if (piece) controller.enqueue(encoder.encode(piece));
          if (piece.length < PIECE) controller.close();
        },
        async cancel() {
          await lines.return(undefined);
        },
      });
      return c.body(body, 200, {
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": `attachment; filename="${EXPORT_FILE_NAMES[kind]}"`,
      });
    },
    { functional: true },
  ),
);

exportPages.post(
  "/settings/export/archive",
  memberRoute(
    async (c, v) => {
      await requestArchive(c.get("rt"), v.user.accountId);
      return c.redirect("/settings/export", 303);
    },
    { functional: true },
  ),
);

exportPages.get(
  "/settings/export/archive/:id",
  memberRoute(
    async (c, v) => {
      const id = c.req.param("id") ?? "";
      const key = await archiveFileKey(c.get("rt"), v.user.accountId, isId(id) ? id : "0");
      const bytes = await mediaStorage(c.get("rt").config).get(key);
      return c.body(new Uint8Array(bytes), 200, {
        "Content-Type": "application/zip",
        "Content-Disposition": `attachment; filename="${key.split("/").pop()}"`,
      });
    },
    { functional: true },
  ),
);
