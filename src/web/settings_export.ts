// /settings/export: the CSV files of a person's follows, lists, blocks, mutes, blocked domains and
// bookmarks, in Mastodon's format (src/services/portability/exports.ts), each streamed as it is
// read so that a large account's file never sits whole in memory.
import { html } from "hono/html";
import { router } from "../http/hono.ts";
import {
  EXPORT_FILE_NAMES,
  EXPORT_KINDS,
  exportCounts,
  exportLines,
  isExportKind,
} from "../services/portability/exports.ts";
import { memberPage, memberRoute } from "./settings_portability.ts";

export const exportPages = router();

/** Lines are sent in pieces of about this many bytes. */
const PIECE = 32 * 1024;

exportPages.get(
  "/settings/export",
  memberRoute(async (c, v) => {
    const t = v.lang.t.portability;
    const counts = await exportCounts(c.get("rt"), v.user.accountId);
    const rows = EXPORT_KINDS.map(
      (kind) => html`<tr><td>${t.kinds[kind]}</td><td>${counts[kind]}</td>
<td><a href="/settings/export/${kind}.csv" download="${EXPORT_FILE_NAMES[kind]}">${t.export.download}</a></td></tr>`,
    );
    return c.html(
      memberPage(c, v, {
        title: t.export.title,
        current: "export",
        body: html`<p>${t.export.lead}</p>
<table><thead><tr><th>${t.export.data}</th><th>${t.export.entries}</th><th></th></tr></thead><tbody>${rows}</tbody></table>`,
      }),
    );
  }),
);

exportPages.get(
  "/settings/export/:file",
  memberRoute(async (c, v) => {
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
  }),
);
