// The AccountWarning entity (a notification's `moderation_warning`) and the
// AccountRelationshipSeveranceEvent (a `severed_relationships` notification's `event`).
import type { Runtime } from "../runtime.ts";
import type { SeveranceView } from "../services/moderation/severances.ts";
import type { WarningView } from "../services/moderation/warnings.ts";
import { renderAccountView } from "./account.ts";

export function renderAccountWarning(rt: Runtime, { row, target }: WarningView) {
  return {
    id: row.id,
    action: row.action,
    text: row.text,
    status_ids: row.status_ids.length > 0 ? row.status_ids : null,
    target_account: renderAccountView(rt, target),
    // Appeals are not taken yet.
    appeal: null,
    created_at: row.created_at.toISOString(),
  };
}

export function renderSeveranceEvent(s: SeveranceView) {
  return {
    id: s.id,
    type: s.type,
    // Nothing of what was severed is deleted: the remote accounts stay known.
    purged: false,
    target_name: s.targetName,
    followers_count: s.followersCount,
    following_count: s.followingCount,
    created_at: s.createdAt.toISOString(),
  };
}
