// Read positions in the home and notifications timelines, shared by a person's apps.
import type { Selectable } from "kysely";
import type { MarkersTable } from "../../db/schema.ts";
import type { Runtime } from "../../runtime.ts";

export const TIMELINES = ["home", "notifications"] as const;
export type Timeline = (typeof TIMELINES)[number];
export type Marker = Selectable<MarkersTable>;

export async function getMarkers(rt: Runtime, accountId: string, timelines: Timeline[]): Promise<Marker[]> {
  if (timelines.length === 0) return [];
  return rt.db
    .selectFrom("markers")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("timeline", "in", timelines)
    .execute();
}

/**
 * Moves the markers. Each write is one atomic upsert that bumps `version`; when two apps race, the
 * newest position wins: an older `last_read_id` never moves a marker backwards.
 */
export async function setMarkers(
  rt: Runtime,
  accountId: string,
  positions: Partial<Record<Timeline, string>>,
): Promise<Marker[]> {
  const now = new Date();
  const entries = Object.entries(positions) as [Timeline, string][];
  await rt.db.transaction().execute(async (trx) => {
    for (const [timeline, lastReadId] of entries) {
      await trx
        .insertInto("markers")
        .values({ account_id: accountId, timeline, last_read_id: lastReadId, version: 1, updated_at: now })
        .onConflict((oc) =>
          oc.columns(["account_id", "timeline"]).doUpdateSet((eb) => ({
            last_read_id: eb
              .case()
              .when("markers.last_read_id", "<", lastReadId)
              .then(lastReadId)
              .else(eb.ref("markers.last_read_id"))
              .end(),
            version: eb("markers.version", "+", 1),
            updated_at: now,
          })),
        )
        .execute();
    }
  });
  return getMarkers(
    rt,
    accountId,
    entries.map(([t]) => t),
  );
}
