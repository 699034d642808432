// What moderators do to accounts (Mastodon's Admin::AccountAction and the account endpoints of its
// admin API): warn, force media sensitive, disable sign-in, silence (limit), suspend, and undo each;
// approve or reject a pending sign-up. Each action is in the audit log. Its effects on the rest of
// the API follow from the account's columns, read by the visibility rule, sign-in and the
// serializers: a suspended author is hidden everywhere, a silenced one stays off public timelines
// and search for non-followers, a disabled user cannot sign in.
import type { Db } from "../../db/index.ts";
import type { AccountWarningAction } from "../../db/schema.ts";
import { fieldError, notFound, validationFailed } from "../../domain/errors.ts";
import { isId, newId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import { publishEvent } from "../../streaming/events.ts";
import { invalidateAuth } from "../auth/authenticate.ts";
import { federate } from "../federation/outbox.ts";
import { queueMail } from "../mail.ts";
import { mailTexts } from "../mail_texts.ts";
import { notify } from "../notifications/create.ts";
import { accountForStaff, acctOf, type StaffTarget } from "./account_list.ts";
import { purgeLater } from "./account_purge.ts";
import { resolveWithin } from "./admin_reports.ts";
import { logAction } from "./audit_log.ts";
import { notAllowed, requireAbove, requirePermission, type Staff } from "./staff.ts";

export const ACTION_TYPES = ["none", "sensitive", "disable", "silence", "suspend"] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

export interface ActionInput {
  type: string | undefined;
  reportId?: string;
  /** The moderator's words to the account (also kept in the audit log). */
  text?: string;
  /** Notify the account (and mail it) of the warning; true unless asked otherwise. */
  sendEmailNotification?: boolean;
}

const TEXT_MAX = 5000;

/** The account acted on, after the checks every account action makes. */
async function target(rt: Runtime, actor: Staff, id: string): Promise<StaffTarget> {
  const account = await accountForStaff(rt, actor, id);
  requireAbove(actor, { id: account.id, role: account.role });
  return account;
}

/** Runs `change` and the audit entry in one transaction, then lets caches and sessions know. */
async function apply(
  rt: Runtime,
  actor: Staff,
  account: StaffTarget,
  action: string,
  change: (trx: Db) => Promise<unknown>,
  text?: string | null,
): Promise<void> {
  await rt.db.transaction().execute(async (trx) => {
    await change(trx);
    await logAction(trx, actor, {
      action,
      targetType: "Account",
      targetId: account.id,
      identifier: acctOf(account),
      text,
    });
  });
  await settled(rt, account.id);
}

async function settled(rt: Runtime, accountId: string): Promise<void> {
  await invalidateAuth(rt);
  await publishEvent(rt, "account.changed", { id: accountId });
}

const setAccount = (db: Db, id: string, values: { silenced_at?: Date | null; sensitized_at?: Date | null }) =>
  db.updateTable("accounts").set(values).where("id", "=", id).execute();

/**
 * Marks the account suspended and its data due for deletion (account_purge.ts) in 30 days; a local
 * account's followers on other servers are told it is gone.
 */
async function suspendWithin(rt: Runtime, db: Db, accountId: string): Promise<void> {
  const now = new Date();
  await federate(rt, db, accountId, { type: "DeleteActor", accountId });
  await db.updateTable("accounts").set({ suspended_at: now }).where("id", "=", accountId).execute();
  await purgeLater(rt, db, accountId, now);
}

/** POST /api/v1/admin/accounts/:id/action */
export async function takeAction(rt: Runtime, actor: Staff, id: string, input: ActionInput): Promise<void> {
  requirePermission(actor, "manageUsers");
  const type = input.type as ActionType;
  if (!ACTION_TYPES.includes(type)) throw validationFailed({ type: [fieldError.inclusion] });
  const text = input.text ?? "";
  if ([...text].length > TEXT_MAX) throw validationFailed({ text: [fieldError.tooLong(TEXT_MAX)] });
  const account = await target(rt, actor, id);
  if (type === "disable" && !account.user_id) throw notAllowed();
  const report = input.reportId ? await reportOf(rt, input.reportId) : null;

  const warningId = newId();
  await rt.db.transaction().execute(async (trx) => {
    const now = new Date();
    switch (type) {
      case "sensitive":
        await setAccount(trx, account.id, { sensitized_at: now });
        break;
      case "silence":
        await setAccount(trx, account.id, { silenced_at: now });
        break;
      case "disable":
        await trx
          .updateTable("users")
          .set({ disabled: true, updated_at: now })
          .where("id", "=", account.user_id)
          .execute();
        break;
      case "suspend":
        await suspendWithin(rt, trx, account.id);
        break;
    }
    const identifier = acctOf(account);
    if (type !== "none") {
      await logAction(trx, actor, {
        action: type,
        targetType: type === "disable" ? "User" : "Account",
        targetId: account.id,
        identifier,
        text: text || null,
      });
    }
    await trx
      .insertInto("account_warnings")
      .values({
        id: warningId,
        account_id: actor.accountId,
        target_account_id: account.id,
        action: type as AccountWarningAction,
        text,
        status_ids: JSON.stringify(report?.status_ids ?? []),
        report_id: report?.id ?? null,
        created_at: now,
      })
      .execute();
    // A bare warning is worth a log entry only when it says something.
    if (type === "none" && text) {
      await logAction(trx, actor, { action: "create", targetType: "Account", targetId: account.id, identifier, text });
    }
    // Acting on one report with "none" resolves it alone; any other action resolves every open
    // report about the account, as Mastodon does.
    const resolved =
      type === "none"
        ? report && report.action_taken_at === null
          ? [report.id]
          : []
        : (
            await trx
              .selectFrom("reports")
              .select("id")
              .where("target_account_id", "=", account.id)
              .where("action_taken_at", "is", null)
              .execute()
          ).map((r) => r.id);
    for (const reportId of resolved) await resolveWithin(trx, actor, reportId);

    if (input.sendEmailNotification !== false && account.user_id && account.domain === null) {
      await notify(rt, trx, {
        recipientId: account.id,
        fromAccountId: account.id,
        type: "moderation_warning",
        accountWarningId: warningId,
      });
      if (account.email) await queueMail(rt, trx, warningMail(rt, account.email, account.locale, type, text));
    }
  });
  await settled(rt, account.id);
}

/** The mail of a warning, in the account's language; `site` names the server by its domain. */
function warningMail(rt: Runtime, to: string, locale: string | null, type: ActionType, note: string) {
  const t = mailTexts(locale).warning;
  const site = rt.config.localDomain;
  return { to, subject: t.subject(site, t.actions[type]), text: t.text(site, t.actions[type], note) };
}

async function reportOf(rt: Runtime, id: string) {
  const report = isId(id)
    ? await rt.db
        .selectFrom("reports")
        .select(["id", "status_ids", "action_taken_at"])
        .where("id", "=", id)
        .executeTakeFirst()
    : undefined;
  if (!report) throw notFound();
  return report;
}

/** Approves a pending sign-up (403 when it is not pending, as in Mastodon). */
export async function approveAccount(rt: Runtime, actor: Staff, id: string): Promise<void> {
  requirePermission(actor, "manageUsers");
  const account = await accountForStaff(rt, actor, id);
  if (!account.user_id || account.approved) throw notAllowed();
  await apply(rt, actor, account, "approve", (db) =>
    db.updateTable("users").set({ approved: true, updated_at: new Date() }).where("id", "=", account.user_id).execute(),
  );
}

/** Rejects a pending sign-up: the account and its user are deleted (the username is freed). */
export async function rejectAccount(rt: Runtime, actor: Staff, id: string): Promise<StaffTarget> {
  requirePermission(actor, "manageUsers");
  const account = await accountForStaff(rt, actor, id);
  if (!account.user_id || account.approved) throw notAllowed();
  await apply(rt, actor, account, "reject", (db) => db.deleteFrom("accounts").where("id", "=", account.id).execute());
  return account;
}

export async function enableAccount(rt: Runtime, actor: Staff, id: string): Promise<void> {
  requirePermission(actor, "manageUsers");
  const account = await target(rt, actor, id);
  if (!account.user_id) throw notAllowed();
  await apply(rt, actor, account, "enable", (db) =>
    db
      .updateTable("users")
      .set({ disabled: false, updated_at: new Date() })
      .where("id", "=", account.user_id)
      .execute(),
  );
}

export async function unsilenceAccount(rt: Runtime, actor: Staff, id: string): Promise<void> {
  requirePermission(actor, "manageUsers");
  const account = await target(rt, actor, id);
  await apply(rt, actor, account, "unsilence", (db) => setAccount(db, account.id, { silenced_at: null }));
}

export async function unsensitiveAccount(rt: Runtime, actor: Staff, id: string): Promise<void> {
  requirePermission(actor, "manageUsers");
  const account = await target(rt, actor, id);
  await apply(rt, actor, account, "unsensitive", (db) => setAccount(db, account.id, { sensitized_at: null }));
}

/**
 * Lifts a suspension. Its data are kept until the purge, which then finds the account no longer
 * suspended and leaves it; an account whose data are gone stays as it is (403, as Mastodon).
 */
export async function unsuspendAccount(rt: Runtime, actor: Staff, id: string): Promise<void> {
  requirePermission(actor, "manageUsers");
  const account = await target(rt, actor, id);
  if (account.suspended_at === null || (account.domain === null && !account.user_id)) throw notAllowed();
  await apply(rt, actor, account, "unsuspend", async (db) => {
    await db.updateTable("accounts").set({ suspended_at: null }).where("id", "=", account.id).execute();
    // Other servers learn the account is back (they fetch it again on the Update).
    await federate(rt, db, account.id, { type: "UpdateActor", accountId: account.id });
  });
}

/** DELETE /api/v1/admin/accounts/:id: the data of a suspended account, now rather than in 30 days. */
export async function deleteAccountData(rt: Runtime, actor: Staff, id: string): Promise<StaffTarget> {
  requirePermission(actor, "deleteUserData");
  const account = await target(rt, actor, id);
  if (account.suspended_at === null) throw notAllowed();
  await apply(rt, actor, account, "destroy", (db) =>
    rt.queue.enqueue("accounts.purge", { accountId: account.id, now: true }, {}, db),
  );
  return account;
}
