// The audit log: every change staff make (to accounts, reports, blocks, tags…) is written here in
// the transaction that makes it, with who, what, on what, when and the moderator's note. Mastodon
// has no API for it; admins read it through listAuditLog (the web admin).
import type { Selectable } from "kysely";
import type { Db } from "../../db/index.ts";
import { type Page, type PageResult, paginate } from "../../db/paginate.ts";
import type { AdminActionLogsTable } from "../../db/schema.ts";
import { newId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import { requirePermission, type Staff } from "./staff.ts";

export type AuditEntry = Selectable<AdminActionLogsTable>;

export type TargetType =
  | "Account"
  | "User"
  | "Report"
  | "DomainBlock"
  | "DomainAllow"
  | "EmailDomainBlock"
  | "CanonicalEmailBlock"
  | "IpBlock"
  | "Tag"
  | "Status"
  | "UserRole"
  | "Setting"
  | "Rule"
  | "TermsOfService"
  | "PreviewCard"
  | "PreviewCardProvider"
  | "CustomEmoji"
  | "Announcement"
  | "Invite";

export interface AuditRecord {
  /** Mastodon's action names: suspend, unsuspend, silence, create, destroy, approve, resolve… */
  action: string;
  targetType: TargetType;
  targetId: string | null;
  /** How the target reads for people: an acct, a domain, an address. */
  identifier: string;
  text?: string | null;
}

export async function logAction(db: Db, actor: Staff, record: AuditRecord): Promise<void> {
  await db
    .insertInto("admin_action_logs")
    .values({
      id: newId(),
      account_id: actor.accountId,
      action: record.action,
      target_type: record.targetType,
      target_id: record.targetId,
      human_identifier: record.identifier,
      text: record.text ?? null,
      created_at: new Date(),
    })
    .execute();
}

export interface AuditQuery {
  /** Only what this staff member did. */
  accountId?: string;
  action?: string;
  targetType?: TargetType;
  targetId?: string;
}

/** The log, newest first, for staff who may view it. */
export async function listAuditLog(
  rt: Runtime,
  actor: Staff,
  q: AuditQuery,
  page: Page,
): Promise<PageResult<AuditEntry>> {
  requirePermission(actor, "viewAuditLog");
  let query = rt.db.selectFrom("admin_action_logs").selectAll();
  if (q.accountId) query = query.where("account_id", "=", q.accountId);
  if (q.action) query = query.where("action", "=", q.action);
  if (q.targetType) query = query.where("target_type", "=", q.targetType);
  if (q.targetId) query = query.where("target_id", "=", q.targetId);
  return paginate(query, "id", page);
}
