// Who may see a status, decided for one status and one viewer, without I/O. This is the rule; the
// SQL predicates of every list (sql.ts) say the same thing, and a property test holds them to it.
// Mutes are not part of it: a muted account's statuses still open, they only stay out of feeds and
// notifications (sql.ts keeps that rule apart, as `notMuted`).
import type { Visibility } from "../../db/schema.ts";

export interface VisibleStatus {
  id: string;
  account_id: string;
  visibility: Visibility;
  deleted_at: Date | null;
  /** The author's domain (null when local) and whether the author is suspended. */
  author_domain: string | null;
  author_suspended: boolean;
}

export interface Viewer {
  /** Null for anonymous readers. */
  id: string | null;
  /** Authors the viewer follows. */
  following: ReadonlySet<string>;
  /** Authors the viewer blocks, or who block the viewer. */
  blocked: ReadonlySet<string>;
  /** Domains the viewer blocks. */
  blockedDomains: ReadonlySet<string>;
  /** Statuses that mention the viewer, silently (after an edit took the mention out) or not. */
  mentionedIn: ReadonlySet<string>;
}

export const ANONYMOUS: Viewer = {
  id: null,
  following: new Set(),
  blocked: new Set(),
  blockedDomains: new Set(),
  mentionedIn: new Set(),
};

export function canSee(status: VisibleStatus, viewer: Viewer): boolean {
  if (status.deleted_at !== null || status.author_suspended) return false;
  if (viewer.id !== null && status.account_id === viewer.id) return true;
  if (viewer.blocked.has(status.account_id)) return false;
  if (status.author_domain !== null && viewer.blockedDomains.has(status.author_domain)) return false;
  switch (status.visibility) {
    case "public":
    case "unlisted":
      return true;
    case "private":
      return viewer.following.has(status.account_id) || viewer.mentionedIn.has(status.id);
    case "direct":
      return viewer.mentionedIn.has(status.id);
  }
}

/**
 * Whether the viewer may see a status that may be a boost: a boost shows when both it and the
 * boosted status (`original`, undefined when it is gone) may be seen.
 */
export function canSeeWithBoost(
  status: VisibleStatus & { reblog_of_id: string | null },
  original: VisibleStatus | undefined,
  viewer: Viewer,
): boolean {
  if (!canSee(status, viewer)) return false;
  return status.reblog_of_id === null || (original !== undefined && canSee(original, viewer));
}

/** Public and unlisted statuses may be boosted; private ones only by their author (as private). */
export function canReblog(status: VisibleStatus, viewerId: string): boolean {
  if (status.visibility === "direct") return false;
  return status.visibility !== "private" || status.account_id === viewerId;
}
