// Reports: a user flags an account, and some of its statuses, for the moderators, who hear of it
// through an `admin.report` notification. Mastodon's ReportService: a report on another server's
// account may be forwarded (`forward`) to that server and to the servers of the accounts the reported
// statuses reply to (`forward_to_domains`), as a Flag from the instance actor, which does not name
// the reporter. Another server's Flag becomes a report from its actor (receiveReport).

import type { ReportCategory } from "../../db/schema.ts";
import { normalizeDomain } from "../../domain/domain_names.ts";
import { type FieldError, fieldError, notFound, validationFailed } from "../../domain/errors.ts";
import { isId, newId } from "../../domain/ids.ts";
import { urls } from "../../domain/urls.ts";
import type { Runtime } from "../../runtime.ts";
import { federateAsInstance } from "../federation/outbox.ts";
import { notifyStaff } from "../notifications/create.ts";
import { loadStatusRows, viewerFor } from "../visibility/load.ts";
import { canSee } from "../visibility/rule.ts";

export const CATEGORIES: readonly ReportCategory[] = ["spam", "legal", "violation", "other"];
const COMMENT_MAX = 1000;

export interface NewReport {
  targetId: string | undefined;
  statusIds: string[];
  ruleIds: string[];
  comment: string;
  category: string | undefined;
  /** Send the report to the other servers concerned (a remote target only). */
  forward: boolean;
  /** The servers to send it to; the target's own when not given. */
  forwardToDomains: string[] | undefined;
}

/** A domain as accounts store it (with its port, for a server that has one). */
const domainForm = (d: string) => normalizeDomain(d) ?? d.trim().toLowerCase();

export async function createReport(rt: Runtime, reporterId: string, input: NewReport): Promise<string> {
  const target = isId(input.targetId)
    ? await rt.db.selectFrom("accounts").select(["id", "domain"]).where("id", "=", input.targetId).executeTakeFirst()
    : undefined;
  if (!target) throw notFound();

  const statusIds = await reportedStatuses(rt, reporterId, target.id, input.statusIds);

  const ruleIds = input.ruleIds.filter(isId);
  // Citing rules makes a report about rule violations, whatever category was given.
  const category = ruleIds.length > 0 ? "violation" : (input.category ?? "other");
  const errors: Record<string, FieldError[]> = {};
  if (!CATEGORIES.includes(category as ReportCategory)) errors.category = [fieldError.inclusion];
  if ([...input.comment].length > COMMENT_MAX) errors.comment = [fieldError.tooLong(COMMENT_MAX)];
  const rules = ruleIds.length ? await rt.db.selectFrom("rules").select("id").where("id", "in", ruleIds).execute() : [];
  if (rules.length !== new Set(ruleIds).size || ruleIds.length !== input.ruleIds.length) {
    errors.rule_ids = [fieldError.invalid("contains unknown rules")];
  }
  if (Object.keys(errors).length > 0) throw validationFailed(errors);

  // Mastodon's forwarding: to the target's server when its domain is among those asked for, and to
  // the servers asked for of the accounts the reported statuses reply to.
  const forward = input.forward && target.domain !== null;
  const domains = new Set((input.forwardToDomains ?? (target.domain ? [target.domain] : [])).map(domainForm));
  const forwardedToOrigin = forward && domains.has(target.domain!.toLowerCase());
  const replies =
    forward && statusIds.length > 0
      ? await rt.db.selectFrom("statuses").select("in_reply_to_account_id").where("id", "in", statusIds).execute()
      : [];
  const repliedTo = [...new Set(replies.flatMap((s) => s.in_reply_to_account_id ?? []))];
  const others =
    forward && repliedTo.length > 0
      ? await rt.db
          .selectFrom("accounts")
          .select(["id", "domain"])
          .where("id", "in", repliedTo)
          .where("domain", "is not", null)
          .execute()
      : [];
  const recipients = [
    ...(forwardedToOrigin ? [target.id] : []),
    ...others.filter((a) => a.domain !== target.domain && domains.has(a.domain!.toLowerCase())).map((a) => a.id),
  ];

  const id = newId();
  const now = new Date();
  await rt.db.transaction().execute(async (trx) => {
    await trx
      .insertInto("reports")
      .values({
        id,
        account_id: reporterId,
        target_account_id: target.id,
        category: category as ReportCategory,
        comment: input.comment,
        status_ids: JSON.stringify(statusIds),
        rule_ids: JSON.stringify(rules.map((r) => r.id)),
        forwarded: forwardedToOrigin,
        action_taken_at: null,
        created_at: now,
        updated_at: now,
        uri: urls(rt.config).reportUri(id),
      })
      .execute();
    if (recipients.length > 0) await federateAsInstance(rt, trx, { type: "Flag", reportId: id, recipients });
  });
  await notifyStaff(rt, { fromAccountId: reporterId, type: "admin.report", reportId: id });
  return id;
}

/** What another server's Flag says of one account of its. */
export interface ReceivedReport {
  targetId: string;
  statusIds: string[];
  comment: string;
  /** The Flag's id, when it has one of the reporting server. */
  uri: string | null;
}

/** Mastodon keeps this much of another server's comment. */
const REMOTE_COMMENT_MAX = 5000;

/**
 * Another server's report (its Flag) on `input.targetId`, made by its actor `reporterId`, unless it
 * is here already: the same Flag again, or (for a Flag without an id) the same open report. The
 * statuses attached are those of the target that server could see, as Mastodon allows them: public
 * and unlisted ones, followers-only ones when the target has followers there, and any that mention
 * someone there. Returns the report's id, or null when nothing was made.
 */
export async function receiveReport(rt: Runtime, reporterId: string, input: ReceivedReport): Promise<string | null> {
  const reporter = await rt.db
    .selectFrom("accounts")
    .select(["domain", "suspended_at"])
    .where("id", "=", reporterId)
    .executeTakeFirst();
  // A suspended actor's reports are dropped, as Mastodon drops its activities.
  if (!reporter?.domain || reporter.suspended_at) return null;
  const domain = reporter.domain;
  const comment = [...input.comment].slice(0, REMOTE_COMMENT_MAX).join("");
  const wanted = input.statusIds.filter(isId);
  const statuses = wanted.length
    ? await rt.db
        .selectFrom("statuses as s")
        .select("s.id")
        .where("s.id", "in", wanted)
        .where("s.account_id", "=", input.targetId)
        .where((eb) =>
          eb.or([
            eb("s.visibility", "in", ["public", "unlisted"]),
            eb.and([
              eb("s.visibility", "=", "private"),
              eb.exists(
                eb
                  .selectFrom("follows as f")
                  .innerJoin("accounts as fa", "fa.id", "f.account_id")
                  .select("f.id")
                  .where("f.target_account_id", "=", input.targetId)
                  .where("fa.domain", "=", domain),
              ),
            ]),
            eb.exists(
              eb
                .selectFrom("status_mentions as m")
                .innerJoin("accounts as ma", "ma.id", "m.account_id")
                .select("m.account_id")
                .whereRef("m.status_id", "=", "s.id")
                .where("ma.domain", "=", domain),
            ),
          ]),
        )
        .orderBy("s.id")
        .execute()
    : [];
  const statusIds = statuses.map((s) => s.id);

  const id = newId();
  const made = await rt.db.transaction().execute(async (trx) => {
    const same = await trx
      .selectFrom("reports")
      .select(["uri", "comment", "status_ids", "action_taken_at"])
      .where("account_id", "=", reporterId)
      .where("target_account_id", "=", input.targetId)
      .$if(input.uri !== null, (q) => q.where("uri", "=", input.uri))
      .execute();
    const known = same.some((r) =>
      input.uri !== null
        ? true
        : r.uri === null &&
          r.action_taken_at === null &&
          r.comment === comment &&
          JSON.stringify(r.status_ids) === JSON.stringify(statusIds),
    );
    if (known) return false;
    const now = new Date();
    await trx
      .insertInto("reports")
      .values({
        id,
        account_id: reporterId,
        target_account_id: input.targetId,
        category: "other",
        comment,
        status_ids: JSON.stringify(statusIds),
        rule_ids: "[]",
        forwarded: false,
        action_taken_at: null,
        created_at: now,
        updated_at: now,
        uri: input.uri,
      })
      .execute();
    return true;
  });
  if (!made) return null;
  await notifyStaff(rt, { fromAccountId: reporterId, type: "admin.report", reportId: id });
  return id;
}

/**
 * The statuses a report cites: each must be the target's own and one the reporter may see, else
 * the report is a 404, as Mastodon finds them (deleted ones included, which it reads `with_discarded`).
 * A report often follows a block, so the reporter's own block hides nothing here; the target's
 * block of the reporter hides everything, as Mastodon's filter of an account's statuses does.
 */
async function reportedStatuses(rt: Runtime, reporterId: string, targetId: string, ids: string[]): Promise<string[]> {
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return [];
  const rows = [...(await loadStatusRows(rt.db, wanted)).values()].filter((r) => r.account_id === targetId);
  const viewer = await viewerFor(rt, reporterId, rows);
  const blockedByTarget = await rt.db
    .selectFrom("blocks")
    .select("id")
    .where("account_id", "=", targetId)
    .where("target_account_id", "=", reporterId)
    .executeTakeFirst();
  const seen = rows.filter(
    (r) => !blockedByTarget && canSee({ ...r, deleted_at: null }, { ...viewer, blocked: new Set() }),
  );
  if (seen.length !== wanted.length) throw notFound();
  return wanted;
}
