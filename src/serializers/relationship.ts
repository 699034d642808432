// The Relationship entity: how the viewer stands with an account, rendered from what
// services/relationships/views.ts loaded.
import type { RelationshipView } from "../services/relationships/views.ts";

export interface RelationshipEntity {
  id: string;
  following: boolean;
  showing_reblogs: boolean;
  notifying: boolean;
  languages: string[] | null;
  followed_by: boolean;
  blocking: boolean;
  blocked_by: boolean;
  muting: boolean;
  muting_notifications: boolean;
  muting_expires_at: string | null;
  requested: boolean;
  requested_by: boolean;
  domain_blocking: boolean;
  endorsed: boolean;
  note: string;
}

export function renderRelationship(view: RelationshipView): RelationshipEntity {
  // A pending request carries the options the follow will have once accepted.
  const follow = view.follow ?? view.request;
  return {
    id: view.id,
    following: view.follow !== null,
    showing_reblogs: follow?.show_reblogs ?? false,
    notifying: follow?.notify ?? false,
    languages: follow?.languages ?? null,
    followed_by: view.followedBy,
    blocking: view.blocking,
    blocked_by: view.blockedBy,
    muting: view.mute !== null,
    muting_notifications: view.mute?.hide_notifications ?? false,
    muting_expires_at: view.mute?.expires_at ? view.mute.expires_at.toISOString() : null,
    requested: view.request !== null,
    requested_by: view.requestedBy,
    domain_blocking: view.domainBlocking,
    endorsed: view.endorsed,
    note: view.note,
  };
}
