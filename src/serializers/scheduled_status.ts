// The ScheduledStatus entity.
import type { Config } from "../config.ts";
import type { MediaRow } from "../services/media/rows.ts";
import type { ScheduledStatus } from "../services/statuses/scheduled.ts";
import { exactInteger } from "./json_text.ts";
import { renderMedia } from "./media_attachment.ts";

/** `media` holds (at least) the media the scheduled statuses keep, by id. */
export function renderScheduled(config: Config, row: ScheduledStatus, media: Map<string, MediaRow>) {
  const { application_id, ...params } = row.params;
  return {
    id: row.id,
    scheduled_at: row.scheduled_at.toISOString(),
    params: {
      ...params,
      // A JSON number, as Mastodon sends it (and typed apps decode an integer).
      application_id: application_id === null ? null : exactInteger(application_id),
      quoted_status_id: params.quoted_status_id ?? null,
      // Mastodon's schema has no null here: without a policy asked for, there is none to show.
      quote_approval_policy: params.quote_approval_policy ?? undefined,
      scheduled_at: null,
      with_rate_limit: false,
    },
    media_attachments: params.media_ids.flatMap((id) => {
      const m = media.get(id);
      return m ? [renderMedia(config, m)] : [];
    }),
  };
}
