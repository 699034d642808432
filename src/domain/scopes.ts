// OAuth scopes exactly as Mastodon defines them: top-level scopes grant their granular children
// (`read` grants `read:statuses`), and the deprecated `follow` grants the follow-related ones.
// `read:reports`, deprecated since Mastodon 2.6, is gone from its list, so apps can't register it.

const GRANULAR = {
  read: [
    "read:accounts",
    "read:blocks",
    "read:bookmarks",
    "read:collections",
    "read:favourites",
    "read:filters",
    "read:follows",
    "read:lists",
    "read:mutes",
    "read:notifications",
    "read:search",
    "read:statuses",
  ],
  write: [
    "write:accounts",
    "write:blocks",
    "write:bookmarks",
    "write:collections",
    "write:conversations",
    "write:favourites",
    "write:filters",
    "write:follows",
    "write:lists",
    "write:media",
    "write:mutes",
    "write:notifications",
    "write:reports",
    "write:statuses",
  ],
  "admin:read": [
    "admin:read:accounts",
    "admin:read:canonical_email_blocks",
    "admin:read:domain_allows",
    "admin:read:domain_blocks",
    "admin:read:email_domain_blocks",
    "admin:read:ip_blocks",
    "admin:read:reports",
  ],
  "admin:write": [
    "admin:write:accounts",
    "admin:write:canonical_email_blocks",
    "admin:write:domain_allows",
    "admin:write:domain_blocks",
    "admin:write:email_domain_blocks",
    "admin:write:ip_blocks",
    "admin:write:reports",
  ],
} as const;

const FOLLOW_GRANTS = [
  "read:blocks",
  "write:blocks",
  "read:follows",
  "write:follows",
  "read:mutes",
  "write:mutes",
] as const;

export const ALL_SCOPES: ReadonlySet<string> = new Set([
  "read",
  "write",
  "follow",
  "push",
  "profile",
  ...Object.keys(GRANULAR),
  ...Object.values(GRANULAR).flat(),
]);

/** Splits a space-separated scope string (the default is `read`, as in Mastodon). */
export function parseScopes(value: string | null | undefined): string[] {
  const scopes = (value ?? "")
    .split(/[\s+]+/)
    .map((s) => s.trim())
    .filter(Boolean);
  return scopes.length > 0 ? [...new Set(scopes)] : ["read"];
}

export function unknownScopes(scopes: string[]): string[] {
  return scopes.filter((s) => !ALL_SCOPES.has(s));
}

/**
 * Whether holding `granted` allows an action that needs `required`. `profile` stands alone, as in
 * Mastodon: `read` does not grant it and it grants nothing else, so the endpoints that take it list
 * it beside their read scope (`verify_credentials` takes `profile` or `read:accounts`).
 */
export function grants(granted: readonly string[], required: string): boolean {
  if (granted.includes(required)) return true;
  const colon = required.lastIndexOf(":");
  if (colon > 0 && granted.includes(required.slice(0, colon))) return true;
  return granted.includes("follow") && (FOLLOW_GRANTS as readonly string[]).includes(required);
}

/** Whether every scope in `requested` is allowed by `allowed` (an app's scopes bound its tokens'). */
export function isSubset(requested: readonly string[], allowed: readonly string[]): boolean {
  return requested.every((s) => allowed.includes(s) || grants(allowed, s));
}
