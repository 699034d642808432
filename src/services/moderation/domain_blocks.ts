// Server-wide domain blocks: what this server does with a whole remote domain (limit, suspend,
// reject its media). Not to be confused with a user's own blocks (relationships/user_domain_blocks.ts).
// As in Mastodon, a block reaches the domain's accounts and those of its subdomains: suspending
// suspends them and severs the follows between them and local accounts (each local account is
// told what it lost), limiting silences them. Both are stamped with the block's creation time, so
// that lifting or softening the block lifts exactly what it imposed. The data of the accounts it
// suspends are deleted 30 days later unless it is lifted, as a local account's are (account_purge.ts).
// `rookery domains` and the admin API (admin_domain_blocks.ts) share these functions.
import type { Selectable } from "kysely";
import type { Db } from "../../db/index.ts";
import type { DomainBlocksTable } from "../../db/schema.ts";
import { normalizeDomain } from "../../domain/domain_names.ts";
import { notFound, unprocessable } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import { publishEvent } from "../../streaming/events.ts";
import { instanceChanged } from "../instance/cached.ts";
import { purgeLater } from "./account_purge.ts";
import { onDomain, severDomain } from "./severances.ts";

export type DomainBlock = Selectable<DomainBlocksTable>;
export type Severity = DomainBlock["severity"];

export async function domainBlocks(rt: Runtime): Promise<DomainBlock[]> {
  return rt.db.selectFrom("domain_blocks").selectAll().orderBy("domain").execute();
}

/**
 * `https://Example.com/path` → `example.com` (with its port, for servers on one machine); a 422 when
 * it is no domain name.
 */
export function domainToBlock(input: string): string {
  const host = input
    .trim()
    .toLowerCase()
    .replace(/^https?:\/\//, "")
    .replace(/\/.*$/, "");
  const [name = "", port, extra] = host.split(":");
  const domain = normalizeDomain(name);
  if (!domain?.includes(".") || extra !== undefined || (port !== undefined && !/^\d{1,5}$/.test(port)))
    throw unprocessable("Validation failed: Domain is not a valid domain name");
  return port === undefined ? domain : `${domain}:${port}`;
}

export interface BlockInput {
  domain: string;
  severity: Severity;
  rejectMedia?: boolean;
  rejectReports?: boolean;
  publicComment?: string | null;
  privateComment?: string | null;
  obfuscate?: boolean;
}

/** Blocks a domain, or changes its block; returns the block. */
export async function blockDomain(rt: Runtime, input: BlockInput): Promise<DomainBlock> {
  const domain = domainToBlock(input.domain);
  const now = new Date();
  const values = {
    severity: input.severity,
    reject_media: input.rejectMedia ?? false,
    reject_reports: input.rejectReports ?? false,
    obfuscate: input.obfuscate ?? false,
    public_comment: input.publicComment ?? null,
    private_comment: input.privateComment ?? null,
    updated_at: now,
  };
  const block = await rt.db.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto("domain_blocks")
      .values({ id: newId(), domain, created_at: now, ...values })
      .onConflict((oc) => oc.column("domain").doUpdateSet(values))
      .returningAll()
      .executeTakeFirstOrThrow();
    const changed = [...(await liftBlockFromAccounts(trx, row)), ...(await applyBlockToAccounts(rt, trx, row))];
    return { row, changed };
  });
  await accountsChanged(rt, block.changed);
  await instanceChanged(rt);
  return block.row;
}

/** Accounts of the domain and its subdomains. */
const ofDomain = (db: Db, domain: string) => db.updateTable("accounts").where(onDomain(domain));

/**
 * Silences or suspends the domain's accounts that are not already, marked with the block's time
 * (as Mastodon's BlockDomainService does), so that lifting it restores exactly those. Suspending
 * also severs the follows between them and local accounts, and schedules the purge of each 30 days
 * from now (the block may be older, when a limit becomes a suspension).
 */
async function applyBlockToAccounts(rt: Runtime, db: Db, block: DomainBlock): Promise<string[]> {
  if (block.severity === "noop") return [];
  const column = block.severity === "silence" ? "silenced_at" : "suspended_at";
  const rows = await ofDomain(db, block.domain)
    .set({ [column]: block.created_at })
    .where(column, "is", null)
    .returning("id")
    .execute();
  if (block.severity === "suspend") {
    await severDomain(rt, db, block.domain);
    const now = new Date();
    for (const { id } of rows) await purgeLater(rt, db, id, now);
  }
  return rows.map((r) => r.id);
}

/** Undoes what the block did to the domain's accounts (before it changes or goes). */
async function liftBlockFromAccounts(db: Db, block: DomainBlock): Promise<string[]> {
  const ids: string[] = [];
  for (const column of ["silenced_at", "suspended_at"] as const) {
    const rows = await ofDomain(db, block.domain)
      .set({ [column]: null })
      .where(column, "=", block.created_at)
      .returning("id")
      .execute();
    ids.push(...rows.map((r) => r.id));
  }
  return ids;
}

async function accountsChanged(rt: Runtime, ids: string[]): Promise<void> {
  for (const id of new Set(ids)) await publishEvent(rt, "account.changed", { id });
}

/** Lifts a block and what it imposed on the domain's accounts. */
export async function unblockDomain(rt: Runtime, domain: string): Promise<DomainBlock> {
  const { block, changed } = await rt.db.transaction().execute(async (trx) => {
    const row = await trx
      .deleteFrom("domain_blocks")
      .where("domain", "=", domain.trim().toLowerCase())
      .returningAll()
      .executeTakeFirst();
    if (!row) throw notFound();
    return { block: row, changed: await liftBlockFromAccounts(trx, row) };
  });
  await accountsChanged(rt, changed);
  await instanceChanged(rt);
  return block;
}
