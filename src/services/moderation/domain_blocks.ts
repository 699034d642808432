// Server-wide domain blocks: what this server does with a whole remote domain (limit, suspend,
// reject its media). Not to be confused with a user's own blocks (relationships/user_domain_blocks.ts).
import type { Selectable } from "kysely";
import type { Db } from "../../db/index.ts";
import type { DomainBlocksTable } from "../../db/schema.ts";
import { notFound, unprocessable } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import { publishEvent } from "../../streaming/events.ts";
import { instanceChanged } from "../instance/cached.ts";

export type DomainBlock = Selectable<DomainBlocksTable>;
export type Severity = DomainBlock["severity"];

export async function domainBlocks(rt: Runtime): Promise<DomainBlock[]> {
  return rt.db.selectFrom("domain_blocks").selectAll().orderBy("domain").execute();
}

export async function blockDomain(
  rt: Runtime,
  input: {
    domain: string;
    severity: Severity;
    rejectMedia?: boolean;
    publicComment?: string | null;
    obfuscate?: boolean;
  },
): Promise<void> {
  const domain = input.domain
    .trim()
    .toLowerCase()
    .replace(/^https?:\/\//, "")
    .replace(/\/.*$/, "");
  if (!/^[a-z0-9.-]+\.[a-z0-9-]+(:\d+)?$/.test(domain))
    throw unprocessable("Validation failed: Domain is not a valid domain name");
  const now = new Date();
  const values = {
    severity: input.severity,
    reject_media: input.rejectMedia ?? false,
    obfuscate: input.obfuscate ?? false,
    public_comment: input.publicComment ?? null,
    updated_at: now,
  };
  const changed = await rt.db.transaction().execute(async (trx) => {
    const block = await trx
      .insertInto("domain_blocks")
      .values({ id: newId(), domain, private_comment: null, created_at: now, ...values })
      .onConflict((oc) => oc.column("domain").doUpdateSet(values))
      .returningAll()
      .executeTakeFirstOrThrow();
    return [...(await liftBlockFromAccounts(trx, block)), ...(await applyBlockToAccounts(trx, block))];
  });
  await accountsChanged(rt, changed);
  await instanceChanged(rt);
}

/** Accounts of the domain and its subdomains. */
function ofDomain(db: Db, domain: string) {
  return db
    .updateTable("accounts")
    .where((eb) => eb.or([eb("domain", "=", domain), eb("domain", "like", `%.${domain}`)]));
}

/**
 * Silences or suspends the domain's accounts that are not already, marked with the block's time
 * (as Mastodon's BlockDomainService does), so that lifting it restores exactly those.
 */
async function applyBlockToAccounts(db: Db, block: DomainBlock): Promise<string[]> {
  if (block.severity === "noop") return [];
  const column = block.severity === "silence" ? "silenced_at" : "suspended_at";
  const rows = await ofDomain(db, block.domain)
    .set({ [column]: block.created_at })
    .where(column, "is", null)
    .returning("id")
    .execute();
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

export async function unblockDomain(rt: Runtime, domain: string): Promise<void> {
  const changed = await rt.db.transaction().execute(async (trx) => {
    const block = await trx
      .deleteFrom("domain_blocks")
      .where("domain", "=", domain.trim().toLowerCase())
      .returningAll()
      .executeTakeFirst();
    if (!block) throw notFound();
    return liftBlockFromAccounts(trx, block);
  });
  await accountsChanged(rt, changed);
  await instanceChanged(rt);
}
