// Whether any block (by the viewer or of the viewer) or any domain block of the viewer exists. Most
// viewers have none, and a feed page's statement then leaves those checks out: PostgreSQL locks and
// sets up every table and index a statement names on each run, whether it reads them or not.
// Cached per process; blocking and domain blocking drop the answers everywhere once committed.
// Unblocking does not: a stale "yes" costs only the checks, never a status shown.
import { sql } from "kysely";
import type { Runtime } from "../../runtime.ts";
import { cached, invalidate } from "../cache.ts";

const PREFIX = "blocks-involve:";
const TTL_MS = 60_000;

export function blocksInvolve(rt: Runtime, viewerId: string): Promise<boolean> {
  return cached(rt, PREFIX + viewerId, TTL_MS, async () => {
    const { rows } = await sql<{ involved: boolean | number }>`select (
        exists (select 1 from blocks where account_id = ${viewerId})
        or exists (select 1 from blocks where target_account_id = ${viewerId})
        or exists (select 1 from account_domain_blocks where account_id = ${viewerId})) as involved`.execute(rt.db);
    return Boolean(rows[0]?.involved);
  });
}

/** Called once a new block or domain block is committed. */
export const blocksChanged = (rt: Runtime) => invalidate(rt, PREFIX);
