// Deleting what a suspended account left: 30 days after the suspension (unless lifted), or at once
// when staff ask (DELETE /api/v1/admin/accounts/:id). As in Mastodon, the account itself stays, as
// an empty suspended record, so that its name is not taken again and GET answers 410; everything
// else goes: its user and tokens, statuses, media, follows, blocks, lists, notifications. Reports
// about it stay for the moderators. Running it again changes nothing.
import type { Db } from "../../db/index.ts";
import type { Runtime } from "../../runtime.ts";
import { publishEvent } from "../../streaming/events.ts";
import { invalidateAuth } from "../auth/authenticate.ts";
import { removeAccountMedia } from "../media/cleanup.ts";
import { recount } from "./severances.ts";

declare module "../../jobs/queue.ts" {
  interface JobPayloads {
    /** Deletes a suspended account's data; `now` when staff asked, else only 30 days after suspension. */
    "accounts.purge": { accountId: string; now?: boolean };
  }
}

export const PURGE_AFTER_DAYS = 30;
const PURGE_AFTER_MS = PURGE_AFTER_DAYS * 86_400_000;

/** Schedules the purge of an account suspended at `at`, in the suspension's transaction. */
export async function purgeLater(rt: Runtime, db: Db, accountId: string, at: Date): Promise<void> {
  await rt.queue.enqueue("accounts.purge", { accountId }, { runAt: new Date(at.getTime() + PURGE_AFTER_MS) }, db);
}

export async function purgeAccount(rt: Runtime, payload: { accountId: string; now?: boolean }): Promise<void> {
  const account = await rt.db.selectFrom("accounts").selectAll().where("id", "=", payload.accountId).executeTakeFirst();
  // Lifted (or lifted and imposed again, which scheduled its own purge): nothing to do yet.
  if (!account?.suspended_at) return;
  if (!payload.now && account.suspended_at.getTime() + PURGE_AFTER_MS > Date.now()) return;

  await removeAccountMedia(rt, { accountId: account.id });

  const statusIds = (
    await rt.db.selectFrom("statuses").select("id").where("account_id", "=", account.id).execute()
  ).map((s) => s.id);
  await rt.db.transaction().execute(async (trx) => {
    const reports = await trx
      .selectFrom("reports")
      .selectAll()
      .where((eb) => eb.or([eb("account_id", "=", account.id), eb("target_account_id", "=", account.id)]))
      .execute();
    const counterparts = await trx
      .selectFrom("follows")
      .select(["account_id", "target_account_id"])
      .where((eb) => eb.or([eb("account_id", "=", account.id), eb("target_account_id", "=", account.id)]))
      .execute();
    // Deleting the row takes every row that names it along (the schema cascades); the emptied
    // record takes its place under the same id.
    await trx.deleteFrom("accounts").where("id", "=", account.id).execute();
    await trx
      .insertInto("accounts")
      .values({
        ...account,
        display_name: "",
        note: "",
        note_html: "",
        fields: "[]",
        attribution_domains: "[]",
        also_known_as: "[]",
        avatar_file: null,
        avatar_remote_url: null,
        header_file: null,
        header_remote_url: null,
        discoverable: false,
        indexable: false,
        private_key: null,
        moved_to_account_id: null,
      })
      .execute();
    await trx.insertInto("account_stats").values({ account_id: account.id }).execute();
    for (const r of reports) {
      await trx
        .insertInto("reports")
        .values({ ...r, status_ids: JSON.stringify(r.status_ids), rule_ids: JSON.stringify(r.rule_ids) })
        .execute();
    }
    const others = [...new Set(counterparts.flatMap((f) => [f.account_id, f.target_account_id]))];
    await recount(
      trx,
      others.filter((id) => id !== account.id),
    );
    for (let i = 0; i < statusIds.length; i += 500) {
      await rt.queue.enqueue("feeds.remove", { statusIds: statusIds.slice(i, i + 500) }, {}, trx);
    }
  });
  await invalidateAuth(rt);
  await publishEvent(rt, "account.changed", { id: account.id });
}
