// The statuses a filter hides or warns about, one by one (/api/v2/filters/:id/statuses,
// /api/v2/filters/statuses/:id).
import type { Db } from "../../db/index.ts";
import { notFound, unprocessable } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import { filtersChanged, getFilter, ownFilter } from "./filters.ts";

async function ownFilterStatus(db: Db, accountId: string, id: string) {
  const row = await db
    .selectFrom("filter_statuses as s")
    .innerJoin("filters as f", "f.id", "s.filter_id")
    .selectAll("s")
    .where("s.id", "=", id)
    .where("f.account_id", "=", accountId)
    .executeTakeFirst();
  if (!row) throw notFound();
  return row;
}

export async function listFilterStatuses(rt: Runtime, accountId: string, filterId: string) {
  return (await getFilter(rt, accountId, filterId)).statuses;
}

export async function addFilterStatus(rt: Runtime, accountId: string, filterId: string, statusId: string) {
  await ownFilter(rt.db, accountId, filterId);
  const status = await rt.db
    .selectFrom("statuses")
    .select("id")
    .where("id", "=", statusId)
    .where("deleted_at", "is", null)
    .executeTakeFirst();
  if (!status) throw notFound();
  const taken = await rt.db
    .selectFrom("filter_statuses")
    .select("id")
    .where("filter_id", "=", filterId)
    .where("status_id", "=", statusId)
    .executeTakeFirst();
  const alreadyTaken = () => unprocessable("Validation failed: Status has already been taken");
  if (taken) throw alreadyTaken();
  const id = newId();
  const inserted = await rt.db
    .insertInto("filter_statuses")
    .values({ id, filter_id: filterId, status_id: statusId, created_at: new Date() })
    .onConflict((oc) => oc.columns(["filter_id", "status_id"]).doNothing())
    .executeTakeFirst();
  // Added by a request at the same moment: taken, as if it had come first.
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) throw alreadyTaken();
  await filtersChanged(rt, accountId);
  return ownFilterStatus(rt.db, accountId, id);
}

export const getFilterStatus = (rt: Runtime, accountId: string, id: string) => ownFilterStatus(rt.db, accountId, id);

export async function deleteFilterStatus(rt: Runtime, accountId: string, id: string): Promise<void> {
  await ownFilterStatus(rt.db, accountId, id);
  await rt.db.deleteFrom("filter_statuses").where("id", "=", id).execute();
  await filtersChanged(rt, accountId);
}
