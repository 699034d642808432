// The local rows the dispatchers serve: an account by username and a status by id, each only as
// the public may see it.
import { isId } from "../domain/ids.ts";
import type { Runtime } from "../runtime.ts";
import { type AccountRow, loadAccountRows } from "../services/accounts/views.ts";
import { loadStatusRows, visibleRows } from "../services/visibility/load.ts";

/** A local account that is not suspended, by its username (any case). */
export async function localAccountByUsername(rt: Runtime, username: string): Promise<AccountRow | null> {
  const found = await rt.db
    .selectFrom("accounts")
    .select("id")
    .where("acct_key", "=", `${username.toLowerCase()}@`)
    .where("suspended_at", "is", null)
    .executeTakeFirst();
  if (!found) return null;
  return (await loadAccountRows(rt, [found.id])).get(found.id) ?? null;
}

/** The id of a local status anyone may see, written by `username`; null otherwise. */
export async function publicLocalStatusId(rt: Runtime, username: string, id: string): Promise<string | null> {
  if (!isId(id)) return null;
  const row = (await loadStatusRows(rt.db, [id])).get(id);
  if (!row || row.author_domain !== null || row.reblog_of_id) return null;
  if ((await visibleRows(rt, null, [row])).length === 0) return null;
  const author = await rt.db
    .selectFrom("accounts")
    .select("username")
    .where("id", "=", row.account_id)
    .executeTakeFirst();
  return author?.username.toLowerCase() === username.toLowerCase() ? row.id : null;
}
