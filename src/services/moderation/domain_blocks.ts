// Server-wide domain blocks: what this server does with a whole remote domain (limit, suspend,
// reject its media). Not to be confused with a user's own blocks (relationships/user_domain_blocks.ts).
import type { Selectable } from "kysely";
import type { DomainBlocksTable } from "../../db/schema.ts";
import { notFound, unprocessable } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
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
  await rt.db
    .insertInto("domain_blocks")
    .values({ id: newId(), domain, private_comment: null, created_at: now, ...values })
    .onConflict((oc) => oc.column("domain").doUpdateSet(values))
    .execute();
  await instanceChanged(rt);
}

export async function unblockDomain(rt: Runtime, domain: string): Promise<void> {
  const result = await rt.db
    .deleteFrom("domain_blocks")
    .where("domain", "=", domain.trim().toLowerCase())
    .executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) throw notFound();
  await instanceChanged(rt);
}
