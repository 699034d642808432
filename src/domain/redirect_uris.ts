// Redirect URIs of OAuth applications, judged as Doorkeeper (Mastodon's OAuth server) judges them:
// absolute URIs of any scheme (apps register custom ones like `com.tapbots.Ivory.10217:/request_token`),
// or the out-of-band URN that shows the code on a page instead.

export const OOB = "urn:ietf:wg:oauth:2.0:oob";

/** The problem with a redirect URI, in the words of Mastodon's validation message, or null. */
export type RedirectUriProblem =
  | "must be a valid URI."
  | "must be an absolute URI."
  | "must specify a scheme."
  | "cannot contain a fragment."
  | "is forbidden by the server.";

// The characters RFC 3986 allows in a URI (percent-escapes included).
const URI_CHARACTERS = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]+$/;
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):(.*)$/s;
// Schemes that would run code or embed content instead of reaching an app.
const FORBIDDEN_SCHEMES = new Set(["data", "javascript", "vbscript"]);

export function redirectUriProblem(uri: string): RedirectUriProblem | null {
  if (uri === OOB) return null;
  if (!URI_CHARACTERS.test(uri)) return "must be a valid URI.";
  const m = SCHEME.exec(uri);
  if (!m) return "must be an absolute URI.";
  const scheme = m[1].toLowerCase();
  const rest = m[2];
  if (FORBIDDEN_SCHEMES.has(scheme)) return "is forbidden by the server.";
  if (uri.includes("#")) return "cannot contain a fragment.";
  // `app:callback` has no hierarchical part: Doorkeeper reads it as a missing scheme.
  if (!rest.startsWith("/") || scheme === "localhost") return "must specify a scheme.";
  if ((scheme === "http" || scheme === "https") && !hasHost(rest)) return "must be a valid URI.";
  return null;
}

/** Whether a URI's part after the scheme names a host (`//user@host:port/…`). */
function hasHost(rest: string): boolean {
  const authority = /^\/\/([^/?#]*)/.exec(rest)?.[1] ?? "";
  return authority.replace(/^.*@/, "").replace(/:\d*$/, "") !== "";
}

/** Splits what an app registered (a string with one URI per line, or an array) the way Mastodon does. */
export function splitRedirectUris(given: string | readonly string[]): string[] {
  return (typeof given === "string" ? [given] : given).join("\n").split(/\s+/).filter(Boolean);
}

function loopback(url: URL): boolean {
  const host = url.hostname;
  return /^127(\.\d{1,3}){3}$/.test(host) || host === "[::1]";
}

/**
 * Whether `given` is one of the registered URIs: exactly (RFC 6749 §3.1.2.3), except that a loopback
 * URI's port may differ, since native apps listen on whatever port is free (RFC 8252 §7.3).
 */
export function matchesRegistered(given: string, registered: readonly string[]): boolean {
  if (registered.includes(given)) return true;
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    return false;
  }
  if (!loopback(url) || redirectUriProblem(given)) return false;
  return registered.some((candidate) => {
    try {
      const other = new URL(candidate);
      return (
        loopback(other) &&
        other.protocol === url.protocol &&
        other.username === url.username &&
        other.password === url.password &&
        other.hostname === url.hostname &&
        other.pathname === url.pathname &&
        other.search === url.search
      );
    } catch {
      return false;
    }
  });
}

/** `uri` with `values` added to its query, keeping the URI as registered (scheme case included). */
export function withQuery(uri: string, values: Record<string, string>): string {
  const query = new URLSearchParams(values).toString();
  return `${uri}${uri.includes("?") ? "&" : "?"}${query}`;
}

/** `uri` with `values` in its fragment (the `fragment` response mode). */
export function withFragment(uri: string, values: Record<string, string>): string {
  return `${uri}#${new URLSearchParams(values).toString()}`;
}
