// The ScheduledStatus entity.
import type { ScheduledStatus } from "../services/statuses/scheduled.ts";

export function renderScheduled(row: ScheduledStatus) {
  const { application_id, ...params } = row.params;
  return {
    id: row.id,
    scheduled_at: row.scheduled_at.toISOString(),
    params: {
      ...params,
      // Mastodon sends this id as a JSON number, which JavaScript apps would round: a string, as every id.
      application_id,
      scheduled_at: null,
      with_rate_limit: false,
    },
    media_attachments: [],
  };
}
