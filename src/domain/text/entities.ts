// The entities of a text (links, hashtags, mentions) as Mastodon's Extractor finds them for
// rendering: each kind is scanned on its own, then an entity that overlaps an earlier one is
// dropped, so a mention or hashtag inside a URL stays part of the URL.
import { type HashtagMatch, normalizeHashtag, scanHashtags } from "./hashtags.ts";
import { isLocalDomain, type MentionMatch, mentionKey, scanMentions } from "./mentions.ts";
import { scanExtendedUris, scanUrls, type UrlMatch } from "./urls.ts";

export type Entity =
  | ({ kind: "url" } & UrlMatch)
  | ({ kind: "hashtag" } & HashtagMatch)
  | ({ kind: "mention" } & MentionMatch);

export interface MentionRef {
  username: string;
  domain: string | null;
  /** As written, e.g. "@alice@example.com". */
  raw: string;
}

export function extractEntities(text: string): Entity[] {
  return withoutOverlaps([
    ...scanUrls(text).map((url) => ({ kind: "url" as const, ...url })),
    ...scanHashtags(text).map((tag) => ({ kind: "hashtag" as const, ...tag })),
    ...scanMentions(text).map((mention) => ({ kind: "mention" as const, ...mention })),
    ...scanExtendedUris(text).map((uri) => ({ kind: "url" as const, ...uri })),
  ]);
}

/** Sorted by position; an entity starting inside the previous one kept is dropped. */
export function withoutOverlaps<T extends { start: number; end: number }>(entities: T[]): T[] {
  const kept: T[] = [];
  for (const entity of [...entities].sort((a, b) => a.start - b.start)) {
    if (kept.length === 0 || kept[kept.length - 1].end <= entity.start) kept.push(entity);
  }
  return kept;
}

/** `text` with each entity replaced, and the text between entities passed through `between`. */
export function rewrite<T extends { start: number; end: number }>(
  text: string,
  entities: T[],
  replace: (entity: T) => string,
  between: (text: string) => string = (plain) => plain,
): string {
  let result = "";
  let index = 0;
  for (const entity of entities) {
    result += between(text.slice(index, entity.start)) + replace(entity);
    index = entity.end;
  }
  return result + between(text.slice(index));
}

/**
 * The mentions of a text, each account once, in order. With `localDomain`, a mention of this
 * server's domain (`@bob@ourdomain`) comes back with `domain: null`, like `@bob`.
 */
export function extractMentions(text: string, localDomain?: string): MentionRef[] {
  const seen = new Set<string>();
  const refs: MentionRef[] = [];
  for (const entity of extractEntities(text)) {
    if (entity.kind !== "mention") continue;
    const domain = localDomain !== undefined && isLocalDomain(entity.domain, localDomain) ? null : entity.domain;
    const key = mentionKey(entity.username, domain);
    if (seen.has(key)) continue;
    seen.add(key);
    refs.push({ username: entity.username, domain, raw: `@${entity.screenName}` });
  }
  return refs;
}

/** Hashtag names as first written (without "#"), one per normalized name, in order. */
export function extractHashtags(text: string): string[] {
  const seen = new Set<string>();
  const names: string[] = [];
  for (const entity of extractEntities(text)) {
    if (entity.kind !== "hashtag") continue;
    const key = normalizeHashtag(entity.name);
    if (seen.has(key)) continue;
    seen.add(key);
    names.push(entity.name);
  }
  return names;
}

/** The URLs that become links (http(s) and Mastodon's other schemes, xmpp:, magnet:), once each, in order. */
export function extractUrls(text: string): string[] {
  const urls = extractEntities(text).flatMap((entity) =>
    entity.kind === "url" && entity.linkable ? [entity.url] : [],
  );
  return [...new Set(urls)];
}
