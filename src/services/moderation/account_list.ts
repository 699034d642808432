// Finding accounts as moderators do (Mastodon's AccountFilter): by origin, state, role, names,
// email and address, newest first.
import { sql } from "kysely";
import { contains, startsWith } from "../../db/like.ts";
import { type Page, type PageResult, paginate } from "../../db/paginate.ts";
import { ApiError, notFound } from "../../domain/errors.ts";
import { isId } from "../../domain/ids.ts";
import { can, effectiveRole } from "../../domain/roles.ts";
import type { Runtime } from "../../runtime.ts";
import { rolesOf, roleTable } from "../roles/lookup.ts";
import { requirePermission, type Staff } from "./staff.ts";

export const STATUSES = ["active", "pending", "disabled", "silenced", "suspended", "sensitized"] as const;

export interface AccountFilter {
  origin?: string;
  status?: string;
  /** `staff`: accounts whose role holds any permission beyond a user's. */
  permissions?: string;
  roleIds?: string[];
  invitedBy?: string;
  username?: string;
  displayName?: string;
  byDomain?: string;
  email?: string;
  ip?: string;
}

/** Account ids matching the filter, a page of them; unknown filter values are a 400 as in Mastodon. */
export async function findAccounts(
  rt: Runtime,
  actor: Staff,
  f: AccountFilter,
  page: Page,
): Promise<PageResult<string>> {
  requirePermission(actor, "manageUsers");
  let q = rt.db.selectFrom("accounts as a").leftJoin("users as u", "u.account_id", "a.id").select("a.id");
  if (f.origin !== undefined) {
    if (f.origin === "local") q = q.where("a.domain", "is", null);
    else if (f.origin === "remote") q = q.where("a.domain", "is not", null);
    else throw new ApiError(400, `Unknown origin: ${f.origin}`);
  }
  switch (f.status) {
    case undefined:
      break;
    case "active":
      q = q.where("a.suspended_at", "is", null);
      break;
    case "pending":
      q = q.where("u.approved", "=", false);
      break;
    case "disabled":
      q = q.where("u.disabled", "=", true);
      break;
    case "silenced":
      q = q.where("a.silenced_at", "is not", null);
      break;
    case "suspended":
      q = q.where("a.suspended_at", "is not", null);
      break;
    case "sensitized":
      q = q.where("a.sensitized_at", "is not", null);
      break;
    default:
      throw new ApiError(400, `Unknown status: ${f.status}`);
  }
  if (f.permissions !== undefined) {
    if (f.permissions !== "staff") throw new ApiError(400, `Unknown permissions: ${f.permissions}`);
    const table = await roleTable(rt);
    const staff = [...table.byId.values()]
      .filter((r) => can(effectiveRole(r, table.everyone), "viewDashboard"))
      .map((r) => r.id);
    q = staff.length ? q.where("u.role_id", "in", staff) : q.where(sql<boolean>`1 = 0`);
  }
  if (f.roleIds && f.roleIds.length > 0) {
    const ids = f.roleIds.filter(isId);
    q = ids.length ? q.where("u.role_id", "in", ids) : q.where(sql<boolean>`1 = 0`);
  }
  if (f.invitedBy !== undefined) {
    // An account id that cannot exist finds nobody.
    const invitedBy = isId(f.invitedBy) ? f.invitedBy : "0";
    q = q.where("u.invite_id", "in", (eb) =>
      eb
        .selectFrom("invites as i")
        .innerJoin("users as iu", "iu.id", "i.user_id")
        .select("i.id")
        .where("iu.account_id", "=", invitedBy),
    );
  }
  if (f.username) q = q.where(startsWith("a.username", f.username.trim()));
  if (f.displayName) q = q.where(contains("a.display_name", f.displayName.trim()));
  if (f.byDomain) q = q.where(contains("a.domain", f.byDomain.trim()));
  if (f.email) q = q.where(startsWith("u.email", f.email.trim()));
  if (f.ip) {
    const ip = f.ip.trim();
    q = q.where((eb) =>
      eb.or([
        eb("u.sign_up_ip", "=", ip),
        eb.exists(
          eb
            .selectFrom("web_sessions as ws")
            .select("ws.id")
            .whereRef("ws.user_id", "=", "u.id")
            .where("ws.ip", "=", ip),
        ),
      ]),
    );
  }
  const result = await paginate(q, "a.id", page);
  return { ...result, items: result.items.map((r) => r.id) };
}

/** An account (local or remote) with its user's role, for moderators; a 404 when there is none. */
export async function accountForStaff(rt: Runtime, actor: Staff, id: string) {
  requirePermission(actor, "manageUsers");
  const row = isId(id)
    ? await rt.db
        .selectFrom("accounts as a")
        .leftJoin("users as u", "u.account_id", "a.id")
        .select([
          "a.id",
          "a.username",
          "a.domain",
          "a.suspended_at",
          "a.silenced_at",
          "a.sensitized_at",
          "u.id as user_id",
          "u.role_id",
          "u.approved",
          "u.disabled",
          "u.email",
          "u.locale",
        ])
        .where("a.id", "=", id)
        .executeTakeFirst()
    : undefined;
  if (!row) throw notFound();
  const { role_id, ...account } = row;
  return { ...account, role: row.user_id === null ? null : (await rolesOf(rt))(role_id) };
}

export type StaffTarget = Awaited<ReturnType<typeof accountForStaff>>;

/** How the audit log names an account. */
export const acctOf = (a: { username: string; domain: string | null }) =>
  a.domain ? `${a.username}@${a.domain}` : a.username;
