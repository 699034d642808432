// Turning "@name" and "@name@domain" in text into known accounts, for rendering and for statuses.
import type { MentionRef, ResolvedMention } from "../../domain/text/index.ts";
import { mentionKey } from "../../domain/text/index.ts";
import type { Runtime } from "../../runtime.ts";

export interface MentionedAccount extends ResolvedMention {
  id: string;
  domain: string | null;
}

/** Known, unsuspended accounts for the mentions, keyed as the text renderer looks them up. */
export async function resolveMentions(rt: Runtime, refs: MentionRef[]): Promise<Map<string, MentionedAccount>> {
  const local = new Set([rt.config.localDomain.toLowerCase(), rt.config.webDomain.toLowerCase()]);
  const keys = refs.map((r) => {
    const domain = r.domain && !local.has(r.domain.toLowerCase()) ? r.domain.toLowerCase() : "";
    return `${r.username.toLowerCase()}@${domain}`;
  });
  if (keys.length === 0) return new Map();
  const rows = await rt.db
    .selectFrom("accounts")
    .select(["id", "username", "domain", "url", "uri"])
    .where("acct_key", "in", keys)
    .where("suspended_at", "is", null)
    .execute();
  const out = new Map<string, MentionedAccount>();
  for (const r of rows) {
    out.set(mentionKey(r.username, r.domain), {
      id: r.id,
      domain: r.domain,
      url: r.url ?? r.uri,
      username: r.username,
      acct: r.domain ? `${r.username}@${r.domain}` : r.username,
    });
  }
  return out;
}
