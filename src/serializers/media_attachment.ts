// The MediaAttachment entity. Until a job has processed an upload, `url` is null. Media of other
// servers are served from our storage once copied there (src/services/media/remote_cache.ts), by
// their remote URL until then or when they could not be, and through the media proxy (which
// fetches them) when they are not kept; `remote_url` is always the origin's.
import type { Config } from "../config.ts";
import type { EditedMedia } from "../db/schema.ts";
import { urls } from "../domain/urls.ts";
import { mediaStorage } from "../media/storage.ts";
import type { MediaRow } from "../services/media/rows.ts";

function fileUrls(config: Config, row: MediaRow): { url: string | null; preview_url: string | null } {
  if (row.remote_url !== null && row.remote_state !== "cached") {
    if (row.remote_state !== "lazy") return { url: row.remote_url, preview_url: row.remote_url };
    const proxy = (style: "original" | "small") => urls(config).mediaProxy(row.id, style);
    return { url: proxy("original"), preview_url: row.type === "audio" ? null : proxy("small") };
  }
  const storage = mediaStorage(config);
  return {
    url: row.file_key ? storage.url(row.file_key) : null,
    preview_url: row.preview_key ? storage.url(row.preview_key) : null,
  };
}

export function renderMedia(config: Config, row: MediaRow, asEdited?: EditedMedia) {
  const meta = { ...row.meta };
  const focus = asEdited ? asEdited.focus : row.meta.focus;
  if (focus) meta.focus = focus;
  else delete meta.focus;
  return {
    id: row.id,
    type: row.type,
    ...fileUrls(config, row),
    remote_url: row.remote_url,
    preview_remote_url: null,
    text_url: null,
    meta,
    description: asEdited ? asEdited.description : row.description,
    blurhash: row.blurhash,
  };
}
