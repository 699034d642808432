// Mentions as Mastodon's Account::MENTION_RE and Extractor find them: `@user` or `@user@domain`,
// not after a word character, "=" or "/" (so not inside e-mail addresses or URLs), and not
// followed by another @, by "://" or by an accented letter ("@josé" is no mention of "jos"). A
// domain may end in a port (`@bob@127.0.0.1:3001`), as servers federating on one machine are named.
import { LATIN_ACCENTS, WORD } from "./char_classes.ts";

export interface MentionMatch {
  username: string;
  domain: string | null;
  /** `user` or `user@domain`, as written. */
  screenName: string;
  start: number;
  end: number;
}

const USERNAME = "[a-zA-Z0-9_]+(?:[.\\-]+[a-zA-Z0-9_]+)*";
const MENTION = new RegExp(
  `(?<![=/${WORD}])@(?<screenName>(?<username>${USERNAME})(?:@(?<domain>[${WORD}]+(?:[.\\-]+[${WORD}]+)*(?::\\d{1,5})?))?)`,
  "gu",
);
const MENTION_END = new RegExp(`[@＠]|[${LATIN_ACCENTS}]|://`, "uy");
const MAX_DOMAIN_LENGTH = 253;

export function scanMentions(text: string): MentionMatch[] {
  if (!/[@＠]/.test(text)) return [];
  const found: MentionMatch[] = [];
  for (const match of text.matchAll(MENTION)) {
    const end = match.index + match[0].length;
    MENTION_END.lastIndex = end;
    if (MENTION_END.test(text)) continue;
    const { screenName, username, domain } = match.groups!;
    if (domain !== undefined && [...domain].length > MAX_DOMAIN_LENGTH) continue;
    found.push({ username, domain: domain ?? null, screenName, start: match.index, end });
  }
  return found;
}

/**
 * The key a mention is resolved by: the lowercased `username` of a local account, or
 * `username@domain` of a remote one. `RenderOptions.mentions` is keyed the same way.
 */
export function mentionKey(username: string, domain: string | null): string {
  return (domain === null ? username : `${username}@${domain}`).toLowerCase();
}

/** Whether a mention's domain names this server, so that `@bob@ourdomain` is the local `@bob`. */
export function isLocalDomain(domain: string | null, localDomain: string): boolean {
  return domain === null || domain.toLowerCase() === localDomain.toLowerCase();
}
