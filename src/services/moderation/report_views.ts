// What the Report, Admin::Report and Admin::Account entities are rendered from, in batches.
import type { Selectable } from "kysely";
import type { ReportsTable, RulesTable } from "../../db/schema.ts";
import type { UserRole } from "../../domain/roles.ts";
import type { Runtime } from "../../runtime.ts";
import { type AccountView, loadAccountViews } from "../accounts/views.ts";
import { rolesOf } from "../roles/lookup.ts";
import { loadStatusViews, type StatusView } from "../statuses/views.ts";

export type ReportRow = Selectable<ReportsTable>;

export interface ReportView {
  row: ReportRow;
  target: AccountView;
}

const loadRows = async (rt: Runtime, ids: readonly string[]) =>
  ids.length === 0 ? [] : await rt.db.selectFrom("reports").selectAll().where("id", "in", ids).execute();

/** Reports by id, without those whose target account is gone. */
export async function loadReportViews(rt: Runtime, ids: readonly string[]): Promise<Map<string, ReportView>> {
  const rows = await loadRows(rt, [...new Set(ids)]);
  const accounts = await loadAccountViews(rt, [...new Set(rows.map((r) => r.target_account_id))]);
  const out = new Map<string, ReportView>();
  for (const row of rows) {
    const target = accounts.get(row.target_account_id);
    if (target) out.set(row.id, { row, target });
  }
  return out;
}

function adminAccountRows(rt: Runtime, ids: string[]) {
  return rt.db
    .selectFrom("accounts as a")
    .leftJoin("users as u", "u.account_id", "a.id")
    .select([
      "a.id",
      "a.username",
      "a.domain",
      "a.created_at",
      "a.silenced_at",
      "a.suspended_at",
      "a.sensitized_at",
      "u.id as user_id",
      "u.email",
      "u.sign_up_ip",
      "u.locale",
      "u.sign_up_reason",
      "u.role_id",
      "u.confirmed_at",
      "u.approved",
      "u.disabled",
      "u.created_by_application_id",
      (eb) =>
        eb
          .selectFrom("invites as i")
          .innerJoin("users as iu", "iu.id", "i.user_id")
          .select("iu.account_id")
          .whereRef("i.id", "=", "u.invite_id")
          .as("invited_by_account_id"),
    ])
    .where("a.id", "in", ids)
    .execute();
}

/** The addresses a user signed up and signed in from, each with when it was last used, latest first. */
async function addressesOf(
  rt: Runtime,
  rows: { user_id: string | null; sign_up_ip: string | null; created_at: Date }[],
) {
  const userIds = rows.flatMap((r) => r.user_id ?? []);
  const sessions = userIds.length
    ? await rt.db
        .selectFrom("web_sessions")
        .select(["user_id", "ip", (eb) => eb.fn.max("last_seen_at").as("used_at")])
        .where("user_id", "in", userIds)
        .where("ip", "is not", null)
        .groupBy(["user_id", "ip"])
        .execute()
    : [];
  const out = new Map<string, { ip: string; used_at: Date }[]>();
  for (const r of rows) {
    if (!r.user_id) continue;
    const used = new Map<string, Date>();
    if (r.sign_up_ip) used.set(r.sign_up_ip, r.created_at);
    for (const s of sessions) {
      if (s.user_id !== r.user_id || !s.ip) continue;
      const at = new Date(s.used_at as Date | string);
      if (!(at <= (used.get(s.ip) ?? new Date(0)))) used.set(s.ip, at);
    }
    out.set(
      r.user_id,
      [...used].map(([ip, used_at]) => ({ ip, used_at })).sort((a, b) => b.used_at.getTime() - a.used_at.getTime()),
    );
  }
  return out;
}

/** An account as moderators see it: with its user's sign-up details. */
export interface AdminAccountView {
  row: Awaited<ReturnType<typeof adminAccountRows>>[number];
  account: AccountView | null;
  /** The user's role (everyone's for remote accounts). */
  role: UserRole;
  /** Where the user signed up and signed in from, latest first. */
  ips: { ip: string; used_at: Date }[];
}

export async function loadAdminAccountViews(
  rt: Runtime,
  ids: readonly string[],
): Promise<Map<string, AdminAccountView>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const [rows, accounts] = await Promise.all([adminAccountRows(rt, unique), loadAccountViews(rt, unique)]);
  const [ips, roleOf] = await Promise.all([addressesOf(rt, rows), rolesOf(rt)]);
  return new Map(
    rows.map((row) => [
      row.id,
      {
        row,
        account: accounts.get(row.id) ?? null,
        role: roleOf(row.role_id),
        ips: (row.user_id && ips.get(row.user_id)) || [],
      },
    ]),
  );
}

export interface AdminReportViews {
  /** In the order asked, without reports that do not exist. */
  reports: ReportRow[];
  accounts: Map<string, AdminAccountView>;
  /** The statuses the reports cite, deleted ones too, so that moderators can judge them. */
  statuses: StatusView[];
  rules: Map<string, Selectable<RulesTable>>;
}

export async function loadAdminReportViews(
  rt: Runtime,
  viewerId: string,
  ids: readonly string[],
): Promise<AdminReportViews> {
  const rows = await loadRows(rt, ids);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const accountIds = rows.flatMap((r) =>
    [r.account_id, r.target_account_id, r.assigned_account_id, r.action_taken_by_account_id].filter(
      (id): id is string => id !== null,
    ),
  );
  const statusIds = [...new Set(rows.flatMap((r) => r.status_ids))];
  const ruleIds = [...new Set(rows.flatMap((r) => r.rule_ids))];
  const [accounts, statuses, rules] = await Promise.all([
    loadAdminAccountViews(rt, accountIds),
    loadStatusViews(rt, viewerId, statusIds, { includeDeleted: true }),
    ruleIds.length > 0 ? rt.db.selectFrom("rules").selectAll().where("id", "in", ruleIds).execute() : [],
  ]);
  return {
    reports: ids.flatMap((id) => byId.get(id) ?? []),
    accounts,
    statuses,
    rules: new Map(rules.map((r) => [r.id, r])),
  };
}
