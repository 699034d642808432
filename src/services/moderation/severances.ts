// Relationships severed by moderation (Mastodon's RelationshipSeveranceEvent): when a domain block
// removes follows, each local account that lost some hears of it by a `severed_relationships`
// notification telling how many followers and followed accounts went, and why.
import { sql } from "kysely";
import type { Db } from "../../db/index.ts";
import type { SeveranceType } from "../../db/schema.ts";
import { newId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import { notify } from "../notifications/create.ts";

export interface SeveranceView {
  id: string;
  type: SeveranceType;
  targetName: string;
  followersCount: number;
  followingCount: number;
  createdAt: Date;
}

export async function loadSeverances(rt: Runtime, ids: readonly string[]): Promise<Map<string, SeveranceView>> {
  if (ids.length === 0) return new Map();
  const rows = await rt.db
    .selectFrom("account_severances as s")
    .innerJoin("relationship_severance_events as e", "e.id", "s.event_id")
    .select([
      "s.id",
      "e.type",
      "e.target_name as targetName",
      "s.followers_count as followersCount",
      "s.following_count as followingCount",
      "e.created_at as createdAt",
    ])
    .where("s.id", "in", ids)
    .execute();
  return new Map(rows.map((r) => [r.id, r]));
}

/** Accounts of `domain` or of its subdomains, as a domain block reaches them. */
export const onDomain = (domain: string) => {
  const d = domain.replace(/[\\%_]/g, "\\$&");
  return sql<boolean>`(domain = ${domain} or domain like ${`%.${d}`} escape '\\' or domain like ${`${d}:%`} escape '\\' or domain like ${`%.${d}:%`} escape '\\')`;
};

/**
 * Removes every follow (and follow request) between local accounts and accounts of `domain` (and its
 * subdomains), inside
 * the caller's transaction, recording what each local account lost and notifying it. Returns how
 * many follows went.
 */
export async function severDomain(rt: Runtime, db: Db, domain: string): Promise<number> {
  const remote = db.selectFrom("accounts").select("id").where(onDomain(domain));
  const local = db.selectFrom("accounts").select("id").where("domain", "is", null);
  const lost = await db
    .selectFrom("follows")
    .select(["account_id", "target_account_id"])
    .where((eb) =>
      eb.or([
        eb.and([eb("account_id", "in", local), eb("target_account_id", "in", remote)]),
        eb.and([eb("account_id", "in", remote), eb("target_account_id", "in", local)]),
      ]),
    )
    .execute();
  for (const table of ["follows", "follow_requests"] as const) {
    await db
      .deleteFrom(table)
      .where((eb) =>
        eb.or([
          eb.and([eb("account_id", "in", local), eb("target_account_id", "in", remote)]),
          eb.and([eb("account_id", "in", remote), eb("target_account_id", "in", local)]),
        ]),
      )
      .execute();
  }
  if (lost.length === 0) return 0;

  // Each local account: how many followers (remote → local) and followed accounts (local → remote) it lost.
  const localIds = new Set((await local.execute()).map((r) => r.id));
  const perAccount = new Map<string, { followers: number; following: number }>();
  const counted = (id: string) => perAccount.get(id) ?? perAccount.set(id, { followers: 0, following: 0 }).get(id)!;
  for (const f of lost) {
    if (localIds.has(f.account_id)) counted(f.account_id).following++;
    else counted(f.target_account_id).followers++;
  }
  const touched = [...new Set(lost.flatMap((f) => [f.account_id, f.target_account_id]))];
  await recount(db, touched);

  const eventId = newId();
  await db
    .insertInto("relationship_severance_events")
    .values({ id: eventId, type: "domain_block", target_name: domain, created_at: new Date() })
    .execute();
  for (const [accountId, n] of perAccount) {
    const id = newId();
    await db
      .insertInto("account_severances")
      .values({
        id,
        account_id: accountId,
        event_id: eventId,
        followers_count: n.followers,
        following_count: n.following,
      })
      .execute();
    await notify(rt, db, {
      recipientId: accountId,
      fromAccountId: accountId,
      type: "severed_relationships",
      accountSeveranceId: id,
    });
  }
  return lost.length;
}

/** Sets the follower and following counters of `ids` from the follows that remain. */
export async function recount(db: Db, ids: string[]): Promise<void> {
  for (const id of ids) {
    const [followers, following] = await Promise.all([
      db
        .selectFrom("follows")
        .select((eb) => eb.fn.countAll().as("n"))
        .where("target_account_id", "=", id)
        .executeTakeFirst(),
      db
        .selectFrom("follows")
        .select((eb) => eb.fn.countAll().as("n"))
        .where("account_id", "=", id)
        .executeTakeFirst(),
    ]);
    await db
      .updateTable("account_stats")
      .set({ followers_count: Number(followers?.n ?? 0), following_count: Number(following?.n ?? 0) })
      .where("account_id", "=", id)
      .execute();
  }
}
