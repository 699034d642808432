// The status search language Mastodon 4.2+ understands: words, "quoted phrases", `-` to exclude
// either, and the operators from:, has:, is:, language:, before:, after:, during: and in: (each
// of which `-` turns around, except in:). An unknown `word:value` is searched as text. Pure.
import { unprocessable } from "./errors.ts";

export type HasWhat = "media" | "image" | "video" | "audio" | "poll" | "link" | "embed";
export type IsWhat = "reply" | "sensitive";
export type SearchScope = "all" | "library" | "public";

export type Filter =
  | { kind: "from"; acct: string }
  | { kind: "has"; what: HasWhat }
  | { kind: "is"; what: IsWhat }
  | { kind: "language"; code: string }
  /** Statuses created at or after `from` and before `to` (UTC days). */
  | { kind: "time"; from: Date | null; to: Date | null };

export interface StatusQuery {
  /** Words and phrases that must all occur, each a list of words (a phrase keeps its order). */
  include: string[][];
  /** Words and phrases none of which may occur. */
  exclude: string[][];
  filters: { filter: Filter; negated: boolean }[];
  scope: SearchScope;
}

const HAS = new Set<string>(["media", "image", "video", "audio", "poll", "link", "embed"]);
const IS = new Set<string>(["reply", "sensitive"]);
const DAY = 86_400_000;

/** The words of a text as the index keeps them: lowercase, without accents, split at non-letters. */
export function searchWords(text: string): string[] {
  return (
    text
      .normalize("NFKD")
      .replace(/\p{M}+/gu, "")
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/** One token: an optional sign, then `key:value`, a "phrase" or a word. */
const TOKEN = /([+-]?)(?:([a-z]+):(?:"([^"]*)"?|(\S+))|"([^"]*)"?|(\S+))/giu;

function day(value: string): Date {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const date = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : null;
  if (!date || Number.isNaN(date.getTime()) || date.getUTCDate() !== Number(m![3]))
    throw unprocessable(`Invalid date in search query: ${value}`);
  return date;
}

function operator(key: string, value: string): Filter | SearchScope | null {
  switch (key) {
    case "from":
      return { kind: "from", acct: value.replace(/^@/, "") };
    case "has":
      return HAS.has(value.toLowerCase()) ? { kind: "has", what: value.toLowerCase() as HasWhat } : null;
    case "is":
      return IS.has(value.toLowerCase()) ? { kind: "is", what: value.toLowerCase() as IsWhat } : null;
    case "language":
      return { kind: "language", code: value.toLowerCase() };
    case "before":
      return { kind: "time", from: null, to: day(value) };
    case "after":
      return { kind: "time", from: new Date(day(value).getTime() + DAY), to: null };
    case "during": {
      const d = day(value);
      return { kind: "time", from: d, to: new Date(d.getTime() + DAY) };
    }
    case "in":
      return value === "library" || value === "public" || value === "all" ? value : null;
    default:
      return null;
  }
}

export function parseStatusQuery(q: string): StatusQuery {
  const out: StatusQuery = { include: [], exclude: [], filters: [], scope: "all" };
  for (const m of q.matchAll(TOKEN)) {
    const [, sign, key, quotedValue, value, phrase, word] = m;
    const negated = sign === "-";
    if (key !== undefined) {
      const op = operator(key.toLowerCase(), quotedValue ?? value ?? "");
      if (typeof op === "string") {
        out.scope = op;
        continue;
      }
      if (op !== null) {
        out.filters.push({ filter: op, negated });
        continue;
      }
    }
    const words = searchWords(phrase ?? word ?? `${key}:${quotedValue ?? value}`);
    if (words.length > 0) (negated ? out.exclude : out.include).push(words);
  }
  return out;
}
