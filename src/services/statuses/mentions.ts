// Turning "@name" and "@name@domain" in text into known accounts, for rendering and for statuses.
import type { MentionRef, ResolvedMention } from "../../domain/text/index.ts";
import { mentionKey } from "../../domain/text/index.ts";
import type { Runtime } from "../../runtime.ts";

/** Remote mentions of a post looked up on their servers when unknown here; more are left as text. */
const MAX_RESOLVED_PER_POST = 5;

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
  const known = () =>
    rt.db
      .selectFrom("accounts")
      .select(["id", "username", "domain", "url", "uri", "acct_key"])
      .where("acct_key", "in", keys)
      .where("suspended_at", "is", null)
      .execute();
  let rows = await known();
  // Accounts of other servers not known yet are asked for through WebFinger, a few per post.
  const found = new Set(rows.map((r) => r.acct_key));
  const unknown = refs.filter((_, i) => keys[i].split("@")[1] !== "" && !found.has(keys[i]));
  if (unknown.length > 0) {
    const asked = unknown.slice(0, MAX_RESOLVED_PER_POST);
    const resolved = await Promise.all(
      asked.map((r) => rt.remote.account(rt, r.username, r.domain!).catch(() => null)),
    );
    if (resolved.some((id) => id !== null)) rows = await known();
  }
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
