// The MediaAttachment entity. Until a job has processed an upload, `url` is null. Media of other
// servers are not copied here (yet): their `url` is the remote one.
import type { Config } from "../config.ts";
import type { EditedMedia } from "../db/schema.ts";
import { mediaStorage } from "../media/storage.ts";
import type { MediaRow } from "../services/media/rows.ts";

export function renderMedia(config: Config, row: MediaRow, asEdited?: EditedMedia) {
  const storage = mediaStorage(config);
  const meta = { ...row.meta };
  const focus = asEdited ? asEdited.focus : row.meta.focus;
  if (focus) meta.focus = focus;
  else delete meta.focus;
  return {
    id: row.id,
    type: row.type,
    url: row.file_key ? storage.url(row.file_key) : row.remote_url,
    preview_url: row.preview_key ? storage.url(row.preview_key) : row.remote_url,
    remote_url: row.remote_url,
    preview_remote_url: null,
    text_url: null,
    meta,
    description: asEdited ? asEdited.description : row.description,
    blurhash: row.blurhash,
  };
}
