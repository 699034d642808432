// What a local username may be: letters, digits and underscores, at most 30 of them, and none of
// the names that would pass for the server or its staff.

export const USERNAME_FORMAT = /^[a-z0-9_]+$/i;
export const USERNAME_MAX_LENGTH = 30;

/** Names nobody may sign up with, compared after undoing look-alike digits ("4dm1n" is "admin"). */
const RESERVED_EXACT = new Set([
  "abuse",
  "account",
  "accounts",
  "admin",
  "admins",
  "administration",
  "administrator",
  "help",
  "helpdesk",
  "hostmaster",
  "info",
  "instance",
  "mod",
  "mods",
  "moderator",
  "moderators",
  "noreply",
  "no_reply",
  "owner",
  "postmaster",
  "root",
  "security",
  "server",
  "staff",
  "support",
  "system",
  "webmaster",
]);

/** Names nobody may sign up with anything containing: they would pass for the software itself. */
const RESERVED_PARTS = ["rookery", "mastodon"];

const LOOK_ALIKES: Record<string, string> = {
  "0": "o",
  "1": "i",
  "2": "z",
  "3": "e",
  "4": "a",
  "5": "s",
  "7": "t",
  "8": "b",
  "9": "g",
};

function normalize(username: string): string {
  return username.toLowerCase().replace(/[0-9]/g, (d) => LOOK_ALIKES[d] ?? d);
}

export function isReservedUsername(username: string): boolean {
  const name = normalize(username);
  return RESERVED_EXACT.has(name) || RESERVED_PARTS.some((part) => name.includes(part));
}
