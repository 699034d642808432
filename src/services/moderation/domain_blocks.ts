// Server-wide domain blocks: what this server does with a whole remote domain (limit, suspend,
// reject its media). Not to be confused with a user's own blocks (relationships/user_domain_blocks.ts).
// As in Mastodon, a block reaches the domain's accounts and those of its subdomains: suspending
// suspends them and severs the follows between them and local accounts (each local account is
// told what it lost), limiting silences them. Both are stamped with the block's creation time, so
// that lifting or softening the block lifts exactly what it imposed. `rookery domains` and the
// admin API (admin_domain_blocks.ts) share these functions.
import type { Selectable } from "kysely";
import type { Db } from "../../db/index.ts";
import type { DomainBlocksTable } from "../../db/schema.ts";
import { notFound, unprocessable } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import { publishEvent } from "../../streaming/events.ts";
import { instanceChanged } from "../instance/cached.ts";
import { onDomain, severDomain } from "./severances.ts";

export type DomainBlock = Selectable<DomainBlocksTable>;
export type Severity = DomainBlock["severity"];

export async function domainBlocks(rt: Runtime): Promise<DomainBlock[]> {
  return rt.db.selectFrom("domain_blocks").selectAll().orderBy("domain").execute();
}

/** `https://Example.com/path` → `example.com`; a 422 when it is no domain name. */
export function normalizeDomain(input: string): string {
  const domain = input
    .trim()
    .toLowerCase()
    .replace(/^https?:\/\//, "")
    .replace(/\/.*$/, "");
  if (!/^[a-z0-9.-]+\.[a-z0-9-]+(:\d+)?$/.test(domain))
    throw unprocessable("Validation failed: Domain is not a valid domain name");
  return domain;
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
  const domain = normalizeDomain(input.domain);
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
    const before = await trx.selectFrom("domain_blocks").selectAll().where("domain", "=", domain).executeTakeFirst();
    if (before) {
      await trx.updateTable("domain_blocks").set(values).where("id", "=", before.id).execute();
    } else {
      await trx
        .insertInto("domain_blocks")
        .values({ id: newId(), domain, created_at: now, ...values })
        .execute();
    }
    const row = await trx
      .selectFrom("domain_blocks")
      .selectAll()
      .where("domain", "=", domain)
      .executeTakeFirstOrThrow();
    await applyBlock(rt, trx, row);
    return row;
  });
  await blockChanged(rt);
  return block;
}

/** The accounts of the block's domain and its subdomains. */
const accountsOf = (db: Db, domain: string) => db.updateTable("accounts").where(onDomain(domain));

/** Imposes the block's severity on its accounts and lifts what a former, stricter severity imposed. */
async function applyBlock(rt: Runtime, db: Db, block: DomainBlock): Promise<void> {
  const at = block.created_at;
  if (block.severity !== "silence") {
    await accountsOf(db, block.domain).set({ silenced_at: null }).where("silenced_at", "=", at).execute();
  }
  if (block.severity !== "suspend") {
    await accountsOf(db, block.domain).set({ suspended_at: null }).where("suspended_at", "=", at).execute();
  }
  if (block.severity === "silence") {
    await accountsOf(db, block.domain).set({ silenced_at: at }).where("silenced_at", "is", null).execute();
  }
  if (block.severity === "suspend") {
    await accountsOf(db, block.domain).set({ suspended_at: at }).where("suspended_at", "is", null).execute();
    await severDomain(rt, db, block.domain);
  }
}

async function blockChanged(rt: Runtime): Promise<void> {
  await instanceChanged(rt);
  // Account views show `limited` and suspension: every cached one may have changed.
  await publishEvent(rt, "account.changed", { id: "*" });
}

/** Lifts a block and what it imposed on the domain's accounts. */
export async function unblockDomain(rt: Runtime, domain: string): Promise<DomainBlock> {
  const block = await rt.db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom("domain_blocks")
      .selectAll()
      .where("domain", "=", domain.trim().toLowerCase())
      .executeTakeFirst();
    if (!row) throw notFound();
    await applyBlock(rt, trx, { ...row, severity: "noop" });
    await trx.deleteFrom("domain_blocks").where("id", "=", row.id).execute();
    return row;
  });
  await blockChanged(rt);
  return block;
}
