// Domain blocks and domain allows through the admin API and the web admin: the same rows as
// `rookery domains`, by id, for staff who may manage federation, each change in the audit log.
import { type Page, type PageResult, paginate } from "../../db/paginate.ts";
import { domainAndParents } from "../../domain/domain_names.ts";
import { ApiError, fieldError, notFound, validationFailed } from "../../domain/errors.ts";
import { isId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import { logAction } from "./audit_log.ts";
import { allowDomain, type DomainAllow, disallowDomain, domainAllows } from "./domain_allows.ts";
import {
  type BlockInput,
  blockDomain,
  type DomainBlock,
  domainToBlock,
  type Severity,
  unblockDomain,
} from "./domain_blocks.ts";
import { requirePermission, type Staff } from "./staff.ts";

export const SEVERITIES: readonly Severity[] = ["noop", "silence", "suspend"];

export async function listDomainBlocks(rt: Runtime, actor: Staff, page: Page): Promise<PageResult<DomainBlock>> {
  requirePermission(actor, "manageFederation");
  return paginate(rt.db.selectFrom("domain_blocks").selectAll(), "id", page);
}

export async function getDomainBlock(rt: Runtime, actor: Staff, id: string): Promise<DomainBlock> {
  requirePermission(actor, "manageFederation");
  const row = isId(id)
    ? await rt.db.selectFrom("domain_blocks").selectAll().where("id", "=", id).executeTakeFirst()
    : null;
  if (!row) throw notFound();
  return row;
}

export type DomainBlockInput = Partial<Omit<BlockInput, "severity">> & { severity?: string };

function severityOf(value: string | undefined, fallback: Severity): Severity {
  const severity = (value ?? fallback) as Severity;
  if (!SEVERITIES.includes(severity)) throw validationFailed({ severity: [fieldError.inclusion] });
  return severity;
}

/** Mastodon's answer when the domain, or a parent of it, is already blocked at least as strictly. */
export class ExistingDomainBlock extends ApiError {
  readonly existing: DomainBlock;
  constructor(existing: DomainBlock) {
    super(422, `You have already imposed stricter limits on ${existing.domain}.`);
    this.existing = existing;
  }
}

export async function createDomainBlock(rt: Runtime, actor: Staff, input: DomainBlockInput): Promise<DomainBlock> {
  requirePermission(actor, "manageFederation");
  if (!input.domain?.trim()) throw validationFailed({ domain: [fieldError.blank] });
  const domain = domainToBlock(input.domain);
  const severity = severityOf(input.severity, "silence");
  const existing = await rt.db
    .selectFrom("domain_blocks")
    .selectAll()
    .where("domain", "in", domainAndParents(domain))
    .execute();
  const rank = (s: Severity) => SEVERITIES.indexOf(s);
  const covering = existing.find((b) => b.domain === domain || rank(b.severity) >= rank(severity));
  if (covering) throw new ExistingDomainBlock(covering);
  const block = await blockDomain(rt, { ...input, domain, severity });
  await logAction(rt.db, actor, {
    action: "create",
    targetType: "DomainBlock",
    targetId: block.id,
    identifier: domain,
  });
  return block;
}

export async function updateDomainBlock(
  rt: Runtime,
  actor: Staff,
  id: string,
  input: DomainBlockInput,
): Promise<DomainBlock> {
  const current = await getDomainBlock(rt, actor, id);
  const block = await blockDomain(rt, {
    domain: current.domain,
    severity: severityOf(input.severity, current.severity),
    rejectMedia: input.rejectMedia ?? current.reject_media,
    rejectReports: input.rejectReports ?? current.reject_reports,
    publicComment: input.publicComment === undefined ? current.public_comment : input.publicComment,
    privateComment: input.privateComment === undefined ? current.private_comment : input.privateComment,
    obfuscate: input.obfuscate ?? current.obfuscate,
  });
  await logAction(rt.db, actor, {
    action: "update",
    targetType: "DomainBlock",
    targetId: id,
    identifier: block.domain,
  });
  return block;
}

export async function deleteDomainBlock(rt: Runtime, actor: Staff, id: string): Promise<void> {
  const current = await getDomainBlock(rt, actor, id);
  await unblockDomain(rt, current.domain);
  await logAction(rt.db, actor, {
    action: "destroy",
    targetType: "DomainBlock",
    targetId: id,
    identifier: current.domain,
  });
}

export async function listDomainAllows(rt: Runtime, actor: Staff, page: Page): Promise<PageResult<DomainAllow>> {
  requirePermission(actor, "manageFederation");
  return paginate(rt.db.selectFrom("domain_allows").selectAll(), "id", page);
}

export async function getDomainAllow(rt: Runtime, actor: Staff, id: string): Promise<DomainAllow> {
  requirePermission(actor, "manageFederation");
  const row = isId(id)
    ? await rt.db.selectFrom("domain_allows").selectAll().where("id", "=", id).executeTakeFirst()
    : null;
  if (!row) throw notFound();
  return row;
}

/** Allows a domain (what matters in limited federation mode); an allowed one is returned as it is. */
export async function createDomainAllow(rt: Runtime, actor: Staff, input: { domain?: string }): Promise<DomainAllow> {
  requirePermission(actor, "manageFederation");
  if (!input.domain?.trim()) throw validationFailed({ domain: [fieldError.blank] });
  const before = await domainAllows(rt);
  const allow = await allowDomain(rt, input.domain);
  if (!before.some((a) => a.id === allow.id)) {
    await logAction(rt.db, actor, {
      action: "create",
      targetType: "DomainAllow",
      targetId: allow.id,
      identifier: allow.domain,
    });
  }
  return allow;
}

export async function deleteDomainAllow(rt: Runtime, actor: Staff, id: string): Promise<void> {
  const current = await getDomainAllow(rt, actor, id);
  await disallowDomain(rt, current.domain);
  await logAction(rt.db, actor, {
    action: "destroy",
    targetType: "DomainAllow",
    targetId: id,
    identifier: current.domain,
  });
}
