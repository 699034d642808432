// Admin::Accounts (v1): finding accounts, reading one as moderators see it, and acting on it.
import { z } from "zod";
import { type Ctx, params, router } from "../../../http/hono.ts";
import { parse, pathId, zBool, zText } from "../../../http/validate.ts";
import type { Runtime } from "../../../runtime.ts";
import { renderAdminAccount } from "../../../serializers/admin_account.ts";
import {
  approveAccount,
  deleteAccountData,
  enableAccount,
  rejectAccount,
  takeAction,
  unsensitiveAccount,
  unsilenceAccount,
  unsuspendAccount,
} from "../../../services/moderation/account_actions.ts";
import { accountForStaff, findAccounts } from "../../../services/moderation/account_list.ts";
import { loadAdminAccountViews } from "../../../services/moderation/report_views.ts";
import type { Staff } from "../../../services/moderation/staff.ts";
import { pageParams, setLinkHeader } from "../../pagination.ts";
import { staffOf, staffOnly } from "./guard.ts";

export const adminAccounts = router();

export const readAccounts = staffOnly("manageUsers", "admin:read", "admin:read:accounts");
const write = staffOnly("manageUsers", "admin:write", "admin:write:accounts");

/** Admin::Account entities of `ids`, in order. */
export async function renderAdminAccounts(rt: Runtime, ids: string[]) {
  const views = await loadAdminAccountViews(rt, ids);
  return ids.flatMap((id) => {
    const view = views.get(id);
    return view ? [renderAdminAccount(rt, view)] : [];
  });
}

const one = async (c: Ctx, id: string) => c.json((await renderAdminAccounts(c.get("rt"), [id]))[0]);

/** A page of accounts found by `find`, with its Link header. Mastodon pages admin lists by 100, up to 200. */
export async function listPage(
  c: Ctx,
  find: (rt: Runtime, actor: Staff, page: ReturnType<typeof pageParams>) => ReturnType<typeof findAccounts>,
) {
  const all = await params(c);
  const result = await find(c.get("rt"), staffOf(c), pageParams(all, { default: 100, max: 200 }));
  setLinkHeader(c, c.get("rt").config.origin, result);
  return c.json(await renderAdminAccounts(c.get("rt"), result.items));
}

const v1Schema = z.object({
  local: zBool(),
  remote: zBool(),
  by_domain: zText(),
  active: zBool(),
  pending: zBool(),
  disabled: zBool(),
  sensitized: zBool(),
  silenced: zBool(),
  suspended: zBool(),
  username: zText(),
  display_name: zText(),
  email: zText(),
  ip: zText(),
  staff: zBool(),
});

adminAccounts.get("/api/v1/admin/accounts", readAccounts, async (c) => {
  const p = parse(v1Schema, await params(c));
  // v1's flags, as Mastodon translates them into the v2 filter.
  const status = (["active", "pending", "disabled", "sensitized", "silenced", "suspended"] as const).find((s) => p[s]);
  return listPage(c, (rt, actor, page) =>
    findAccounts(
      rt,
      actor,
      {
        origin: p.local ? "local" : p.remote ? "remote" : undefined,
        status,
        permissions: p.staff ? "staff" : undefined,
        byDomain: p.by_domain,
        username: p.username,
        displayName: p.display_name,
        email: p.email,
        ip: p.ip,
      },
      page,
    ),
  );
});

adminAccounts.get("/api/v1/admin/accounts/:id", readAccounts, async (c) => {
  const account = await accountForStaff(c.get("rt"), staffOf(c), pathId(c.req.param("id")));
  return one(c, account.id);
});

const actionSchema = z.object({
  type: zText(),
  report_id: zText(),
  warning_preset_id: zText(),
  text: zText(),
  send_email_notification: zBool(),
});

adminAccounts.post("/api/v1/admin/accounts/:id/action", write, async (c) => {
  const id = pathId(c.req.param("id"));
  const p = parse(actionSchema, await params(c));
  await takeAction(c.get("rt"), staffOf(c), id, {
    type: p.type,
    reportId: p.report_id,
    text: p.text,
    sendEmailNotification: p.send_email_notification,
  });
  return c.json({});
});

type Act = (rt: Runtime, actor: Staff, id: string) => Promise<unknown>;
const acts: [string, Act][] = [
  ["approve", approveAccount],
  ["enable", enableAccount],
  ["unsilence", unsilenceAccount],
  ["unsuspend", unsuspendAccount],
  ["unsensitive", unsensitiveAccount],
];
for (const [name, act] of acts) {
  adminAccounts.post(`/api/v1/admin/accounts/:id/${name}`, write, async (c) => {
    const id = pathId(c.req.param("id"));
    await act(c.get("rt"), staffOf(c), id);
    return one(c, id);
  });
}

// The account is rendered as it was: rejecting deletes it, deleting empties it.
adminAccounts.post("/api/v1/admin/accounts/:id/reject", write, async (c) => {
  const id = pathId(c.req.param("id"));
  const before = await renderAdminAccounts(c.get("rt"), [id]);
  await rejectAccount(c.get("rt"), staffOf(c), id);
  return c.json(before[0]);
});

adminAccounts.delete(
  "/api/v1/admin/accounts/:id",
  staffOnly("deleteUserData", "admin:write", "admin:write:accounts"),
  async (c) => {
    const id = pathId(c.req.param("id"));
    const before = await renderAdminAccounts(c.get("rt"), [id]);
    await deleteAccountData(c.get("rt"), staffOf(c), id);
    return c.json(before[0]);
  },
);
