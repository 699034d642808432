// What this server does with another server, decided from its domain blocks and, in limited
// federation mode, the allowed domains: the one place that federation asks before taking an
// activity in, answering a fetch, delivering, or storing media, and that gives new accounts of a
// blocked server the standing the block gives the old ones. A block or an allow covers the domain
// and its subdomains; the most specific block wins, as on Mastodon.
import type { Config } from "../../config.ts";
import type { Db } from "../../db/index.ts";
import { domainAndParents } from "../../domain/domain_names.ts";
import type { DomainBlock } from "./domain_blocks.ts";

export interface DomainPolicy {
  /** Suspended: nothing is taken from it, fetched by it or sent to it. */
  refused: boolean;
  /** Silenced: its accounts stay off the public timelines and their follows need approval. */
  silenced: boolean;
  /** Its attachments are ignored (statuses arrive without their media). */
  rejectMedia: boolean;
}

const OPEN: DomainPolicy = { refused: false, silenced: false, rejectMedia: false };

/**
 * The names a rule may be written for that cover `host`: the host (with its port, if any), then
 * its name without the port, then each parent domain. Longer is more specific.
 */
function coveringNames(host: string): string[] {
  const lower = host.toLowerCase();
  const name = lower.replace(/:\d+$/, "");
  return name === lower ? domainAndParents(lower) : [lower, ...domainAndParents(name)];
}

/** The block that governs `domain`: its own, else its nearest parent's. */
export async function governingBlock(db: Db, domain: string): Promise<DomainBlock | null> {
  const candidates = coveringNames(domain);
  const rows = await db.selectFrom("domain_blocks").selectAll().where("domain", "in", candidates).execute();
  rows.sort((a, b) => b.domain.length - a.domain.length);
  return rows[0] ?? null;
}

/** Whether `domain` (or a parent of it) is among the domains `rookery domains allow` names. */
export async function isAllowedDomain(db: Db, domain: string): Promise<boolean> {
  const row = await db
    .selectFrom("domain_allows")
    .select("id")
    .where("domain", "in", coveringNames(domain))
    .executeTakeFirst();
  return row !== undefined;
}

/** The policy toward `domain` (a host, with its port if it has one); null is this server. */
export async function domainPolicy(
  rt: { db: Db; config: Pick<Config, "limitedFederation"> },
  domain: string | null,
): Promise<DomainPolicy> {
  if (domain === null) return OPEN;
  const db = rt.db;
  if (rt.config.limitedFederation && !(await isAllowedDomain(db, domain))) {
    return { refused: true, silenced: false, rejectMedia: true };
  }
  const block = await governingBlock(db, domain);
  if (!block) return OPEN;
  return {
    refused: block.severity === "suspend",
    silenced: block.severity === "silence",
    rejectMedia: block.reject_media,
  };
}

/**
 * The standing a block gives an account of `domain`: silenced or suspended since the block was made
 * (the block's time is how lifting it later finds the accounts it, and nothing else, limited).
 */
export async function standingUnderBlock(db: Db, domain: string): Promise<{ silenced_at?: Date; suspended_at?: Date }> {
  const block = await governingBlock(db, domain);
  if (block?.severity === "silence") return { silenced_at: block.created_at };
  if (block?.severity === "suspend") return { suspended_at: block.created_at };
  return {};
}
