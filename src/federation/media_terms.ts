// Mastodon's terms on attachments that Fedify's vocabulary lacks: `blurhash` and `focalPoint`
// ([x, y], each from -1 to 1). Fedify drops terms it does not know when it parses or writes an
// object, so they are written into, and read from, the JSON itself, under the names Mastodon's
// context gives them (which GoToSocial, Misskey, Pleroma and Fedify-based servers use too).
import { isBlurhashValid } from "blurhash";

type JsonObject = Record<string, unknown>;

/** Mastodon's context entries for the two terms. */
const TERMS = {
  blurhash: "http://joinmastodon.org/ns#blurhash",
  focalPoint: { "@container": "@list", "@id": "http://joinmastodon.org/ns#focalPoint" },
};

export interface MediaTerms {
  blurhash: string | null;
  focus: { x: number; y: number } | null;
}

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);
const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]);

/**
 * Adds the terms of `media` (in the order of the note's attachments) to the attachments of the
 * compact `note`, which is `document` or inside it, and their context to `document`. The
 * attachments become an array, as Mastodon writes them.
 */
export function addMediaTerms(document: JsonObject, note: JsonObject, media: MediaTerms[]): void {
  if (!media.some((m) => m.blurhash || m.focus)) return;
  const attachments = asList(note.attachment);
  attachments.forEach((item, i) => {
    const terms = media[i];
    if (!isObject(item) || !terms) return;
    if (terms.blurhash) item.blurhash = terms.blurhash;
    if (terms.focus) item.focalPoint = [terms.focus.x, terms.focus.y];
  });
  note.attachment = attachments;
  document["@context"] = [...asList(document["@context"]), TERMS];
}

const linkHref = (url: unknown): string | null => {
  const first = asList(url)[0];
  if (typeof first === "string") return first;
  return isObject(first) && typeof first.href === "string" ? first.href : null;
};

const coordinate = (v: unknown): number | null =>
  typeof v === "number" && Number.isFinite(v) ? Math.max(-1, Math.min(1, v)) : null;

/** The terms of each attachment of a compact `note` as another server wrote it, by the attachment's URL. */
export function mediaTermsOf(note: unknown): Map<string, MediaTerms> {
  const found = new Map<string, MediaTerms>();
  if (!isObject(note)) return found;
  for (const item of asList(note.attachment)) {
    if (!isObject(item)) continue;
    const url = linkHref(item.url);
    if (!url) continue;
    const hash = item.blurhash ?? item["toot:blurhash"];
    const blurhash = typeof hash === "string" && hash.length <= 200 && isBlurhashValid(hash).result ? hash : null;
    const point = asList(item.focalPoint ?? item["toot:focalPoint"]);
    const [x, y] = [coordinate(point[0]), coordinate(point[1])];
    found.set(url, { blurhash, focus: point.length === 2 && x !== null && y !== null ? { x, y } : null });
  }
  return found;
}
