// Addressing written as Mastodon writes it. Fedify compacts the public collection to `as:Public`
// and a single recipient to a plain string; servers that match addressing as plain strings
// (snac2, Lemmy) read `as:Public` as no public at all, so a public post arrives as a direct message
// and a profile update is dropped. Every document this server sends or serves passes through here:
// `to`, `cc`, `bto` and `bcc` become arrays, and the public collection its full URI. So does every
// activity received, before it is read: its bare `Public`, which JSON-LD does not know, is the
// public collection to Mastodon (and so here), as `as:Public` and the full URI are. The rewrite
// keeps the meaning: our documents use the ActivityStreams context, where `as:Public` is that URI,
// and a one-element array is the same JSON-LD value as the element. Pure JSON, no Fedify.

export const PUBLIC_URI = "https://www.w3.org/ns/activitystreams#Public";

const PUBLIC_FORMS = new Set(["as:Public", "Public", PUBLIC_URI]);
/** Keys whose values name recipients: addressing, and who an interaction policy lets quote or reply. */
const ADDRESSING = new Set(["to", "cc", "bto", "bcc", "audience", "automaticApproval", "manualApproval"]);
/** Addressing keys Mastodon always writes as arrays (`audience` it does not write). */
const ARRAYS = new Set(["to", "cc", "bto", "bcc"]);
/** Documents we make nest a few levels (a collection page of Creates of Notes); deeper is not ours. */
const MAX_DEPTH = 16;

/** Whether an addressing value (a URI string) names the public collection, in any of its three forms. */
export function isPublicAddress(value: string): boolean {
  return PUBLIC_FORMS.has(value);
}

function rewriteValue(value: unknown): unknown {
  return typeof value === "string" && isPublicAddress(value) ? PUBLIC_URI : value;
}

/**
 * `json` with its addressing, at every level below it, written as Mastodon writes it: a new object
 * where something changes, `json` itself (and each part of it) where nothing does.
 */
export function mastodonAddressing<T>(json: T, depth = 0): T {
  if (depth > MAX_DEPTH || typeof json !== "object" || json === null) return json;
  if (Array.isArray(json)) {
    const items = json.map((v) => mastodonAddressing(v, depth + 1));
    return items.some((v, i) => v !== json[i]) ? (items as T) : json;
  }
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(json)) {
    let written = value;
    if (ADDRESSING.has(key)) {
      const values = Array.isArray(value) ? value.map(rewriteValue) : rewriteValue(value);
      written = ARRAYS.has(key) && !Array.isArray(values) ? [values] : values;
      if (Array.isArray(value) && Array.isArray(written) && written.every((v, i) => v === value[i])) written = value;
    } else if (key !== "@context") {
      written = mastodonAddressing(value, depth + 1);
    }
    if (written !== value) changed = true;
    out[key] = written;
  }
  return changed ? (out as T) : json;
}
