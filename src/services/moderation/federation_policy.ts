// What this server does with another server, decided from its domain blocks and, in limited
// federation mode, the allowed domains: the one place that federation asks before taking an
// activity in, answering a fetch, delivering, or storing media, and that gives new accounts of a
// blocked server the standing the block gives the old ones. A block or an allow covers the domain
// and its subdomains; the most specific block wins, as on Mastodon.
import type { Db } from "../../db/index.ts";
import { domainAndParents } from "../../domain/domain_names.ts";
import type { Runtime } from "../../runtime.ts";
import { instanceCached } from "../instance/cached.ts";
import type { DomainBlock } from "./domain_blocks.ts";

export interface DomainPolicy {
  /** Suspended: nothing is taken from it, fetched by it or sent to it. */
  refused: boolean;
  /** Silenced: its accounts stay off the public timelines and their follows need approval. */
  silenced: boolean;
  /** Its attachments are ignored (statuses arrive without their media). */
  rejectMedia: boolean;
  /** Its reports (Flags) are ignored. */
  rejectReports: boolean;
}

const OPEN: DomainPolicy = { refused: false, silenced: false, rejectMedia: false, rejectReports: false };

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
async function governingBlock(db: Db, domain: string): Promise<DomainBlock | null> {
  const candidates = coveringNames(domain);
  const rows = await db.selectFrom("domain_blocks").selectAll().where("domain", "in", candidates).execute();
  rows.sort((a, b) => b.domain.length - a.domain.length);
  return rows[0] ?? null;
}

/** The blocks and allows, kept for a minute per process and made anew after any change to them. */
interface Rules {
  blocks: Map<string, DomainBlock>;
  allows: Set<string>;
}

function rules(rt: Runtime): Promise<Rules> {
  return instanceCached(rt, "federation_policy", async () => {
    const [blocks, allows] = await Promise.all([
      rt.db.selectFrom("domain_blocks").selectAll().execute(),
      rt.db.selectFrom("domain_allows").select("domain").execute(),
    ]);
    return { blocks: new Map(blocks.map((b) => [b.domain, b])), allows: new Set(allows.map((a) => a.domain)) };
  });
}

/** Whether any server is refused at all (so that a request need not be looked at closer). */
export async function refusesAny(rt: Runtime): Promise<boolean> {
  if (rt.config.limitedFederation) return true;
  const { blocks } = await rules(rt);
  return [...blocks.values()].some((b) => b.severity === "suspend");
}

/** The policy toward `domain` (a host, with its port if it has one); null is this server. */
export async function domainPolicy(rt: Runtime, domain: string | null): Promise<DomainPolicy> {
  if (domain === null) return OPEN;
  const names = coveringNames(domain);
  const { blocks, allows } = await rules(rt);
  if (rt.config.limitedFederation && !names.some((n) => allows.has(n))) {
    return { refused: true, silenced: false, rejectMedia: true, rejectReports: true };
  }
  const block = names.map((n) => blocks.get(n)).find((b) => b !== undefined);
  if (!block) return OPEN;
  return {
    refused: block.severity === "suspend",
    silenced: block.severity === "silence",
    rejectMedia: block.reject_media,
    rejectReports: block.reject_reports,
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
