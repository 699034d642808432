// Email domain blocks (Mastodon's EmailDomainBlock): sign-ups with an address at a blocked domain,
// or at one of its subdomains, are refused, or need approval when the block allows that.
import type { Selectable } from "kysely";
import { type Page, type PageResult, paginate } from "../../db/paginate.ts";
import type { EmailDomainBlocksTable } from "../../db/schema.ts";
import { fieldError, notFound, validationFailed } from "../../domain/errors.ts";
import { isId, newId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import { logAction } from "./audit_log.ts";
import { requirePermission, type Staff } from "./staff.ts";

export type EmailDomainBlock = Selectable<EmailDomainBlocksTable>;

export async function listEmailDomainBlocks(
  rt: Runtime,
  actor: Staff,
  page: Page,
): Promise<PageResult<EmailDomainBlock>> {
  requirePermission(actor, "manageBlocks");
  return paginate(rt.db.selectFrom("email_domain_blocks").selectAll(), "id", page);
}

export async function getEmailDomainBlock(rt: Runtime, actor: Staff, id: string): Promise<EmailDomainBlock> {
  requirePermission(actor, "manageBlocks");
  const row = isId(id)
    ? await rt.db.selectFrom("email_domain_blocks").selectAll().where("id", "=", id).executeTakeFirst()
    : null;
  if (!row) throw notFound();
  return row;
}

/** `Mail.Example.com.` → `mail.example.com`; null when it is no domain name. */
function normalize(domain: string): string | null {
  const d = domain.trim().toLowerCase().replace(/\.$/, "");
  return /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/.test(d)
    ? d
    : null;
}

export async function createEmailDomainBlock(
  rt: Runtime,
  actor: Staff,
  input: { domain?: string; allowWithApproval?: boolean },
): Promise<EmailDomainBlock> {
  requirePermission(actor, "manageBlocks");
  if (!input.domain?.trim()) throw validationFailed({ domain: [fieldError.blank] });
  const domain = normalize(input.domain);
  if (!domain) throw validationFailed({ domain: [fieldError.invalid()] });
  const existing = await rt.db
    .selectFrom("email_domain_blocks")
    .select("id")
    .where("domain", "=", domain)
    .executeTakeFirst();
  if (existing) throw validationFailed({ domain: [fieldError.taken] });
  const now = new Date();
  const row = {
    id: newId(),
    domain,
    allow_with_approval: input.allowWithApproval ?? false,
    created_at: now,
    updated_at: now,
  };
  await rt.db.transaction().execute(async (trx) => {
    await trx.insertInto("email_domain_blocks").values(row).execute();
    await logAction(trx, actor, {
      action: "create",
      targetType: "EmailDomainBlock",
      targetId: row.id,
      identifier: domain,
    });
  });
  return row;
}

export async function deleteEmailDomainBlock(rt: Runtime, actor: Staff, id: string): Promise<void> {
  const current = await getEmailDomainBlock(rt, actor, id);
  await rt.db.transaction().execute(async (trx) => {
    await trx.deleteFrom("email_domain_blocks").where("id", "=", id).execute();
    await logAction(trx, actor, {
      action: "destroy",
      targetType: "EmailDomainBlock",
      targetId: id,
      identifier: current.domain,
    });
  });
}

/** What the blocks say of an address: refused, allowed only with approval, or free (null). */
export async function emailDomainVerdict(rt: Runtime, email: string): Promise<"blocked" | "approval" | null> {
  const domain = email.slice(email.lastIndexOf("@") + 1).toLowerCase();
  const parts = domain.split(".");
  // The domain and each of its parents: a.b.example.com, b.example.com, example.com, com.
  const candidates = parts.map((_, i) => parts.slice(i).join("."));
  const blocks = await rt.db
    .selectFrom("email_domain_blocks")
    .select("allow_with_approval")
    .where("domain", "in", candidates)
    .execute();
  if (blocks.length === 0) return null;
  return blocks.some((b) => !b.allow_with_approval) ? "blocked" : "approval";
}
