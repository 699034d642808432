// Whether a user may act through apps, and Mastodon's words when they may not.

export interface UserState {
  confirmed: boolean;
  approved: boolean;
  disabled: boolean;
  suspended: boolean;
}

export type InactiveReason = "unconfirmed" | "pending" | "disabled";

/** Why the user can't use apps yet, or null when they can (Mastodon's `functional?`). */
export function inactiveReason(user: UserState): InactiveReason | null {
  if (!user.confirmed) return "unconfirmed";
  if (!user.approved) return "pending";
  if (user.disabled || user.suspended) return "disabled";
  return null;
}

/** Mastodon's texts for each reason, as its API answers them. */
export const INACTIVE_MESSAGES: Record<InactiveReason, string> = {
  unconfirmed: "Your login is missing a confirmed e-mail address",
  pending: "Your login is currently pending approval",
  disabled: "Your login is currently disabled",
};
