// The servers this one knows (Mastodon's Admin::InstancesController): every domain it holds
// accounts of, with how many, what its domain block does, and how contact with it goes (delivery
// failures, the breaker, the last successful delivery and the last activity received).
import { sql } from "kysely";
import { notFound } from "../../domain/errors.ts";
import type { Runtime } from "../../runtime.ts";
import { type ServerHealth, serverHealth } from "../federation/server_health.ts";
import { type DomainPolicy, domainPolicy } from "./federation_policy.ts";
import { requirePermission, type Staff } from "./staff.ts";

export interface Instance {
  domain: string;
  accounts: number;
  health: ServerHealth;
  policy: DomainPolicy;
}

export interface InstanceFigures {
  statuses: number;
  /** Its accounts following local ones. */
  followers: number;
  /** Local accounts following its accounts. */
  following: number;
  /** Reports about its accounts. */
  reports: number;
  mediaBytes: number;
}

const blankHealth = (host: string): ServerHealth => ({
  host,
  failures: 0,
  unavailableUntil: null,
  lastDelivered: null,
  lastReceived: null,
});

async function withHealth(rt: Runtime, rows: { domain: string; accounts: number }[]): Promise<Instance[]> {
  const health = await serverHealth(
    rt,
    rows.map((r) => r.domain),
  );
  return Promise.all(
    rows.map(async (r) => ({
      ...r,
      health: health.get(r.domain) ?? blankHealth(r.domain),
      policy: await domainPolicy(rt, r.domain),
    })),
  );
}

/** Known servers, those with the most accounts first; `name` keeps those whose domain contains it. */
export async function listInstances(
  rt: Runtime,
  actor: Staff,
  filter: { name?: string },
  page: { offset: number; limit: number },
): Promise<{ items: Instance[]; more: boolean }> {
  requirePermission(actor, "manageFederation");
  let query = rt.db
    .selectFrom("accounts")
    .select(["domain", (eb) => eb.fn.countAll<number | string>().as("n")])
    .where("domain", "is not", null)
    .$narrowType<{ domain: string }>();
  const name = filter.name?.trim().toLowerCase();
  if (name) query = query.where(sql<boolean>`domain like ${`%${name.replace(/[\\%_]/g, "\\$&")}%`} escape '\\'`);
  const rows = await query
    .groupBy("domain")
    .orderBy("n", "desc")
    .orderBy("domain")
    .limit(page.limit + 1)
    .offset(page.offset)
    .execute();
  const items = await withHealth(
    rt,
    rows.slice(0, page.limit).map((r) => ({ domain: r.domain, accounts: Number(r.n) })),
  );
  return { items, more: rows.length > page.limit };
}

/** One known server, with what its accounts did here; a 404 when no account of it is known. */
export async function getInstance(
  rt: Runtime,
  actor: Staff,
  domain: string,
): Promise<Instance & { figures: InstanceFigures }> {
  requirePermission(actor, "manageFederation");
  const name = domain.trim().toLowerCase();
  const count = (n: { n: number | string } | undefined) => Number(n?.n ?? 0);
  const accounts = await rt.db
    .selectFrom("accounts")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where("domain", "=", name)
    .executeTakeFirst();
  if (count(accounts) === 0) throw notFound();
  const theirs = rt.db.selectFrom("accounts").select("id").where("domain", "=", name);
  const ours = rt.db.selectFrom("accounts").select("id").where("domain", "is", null);
  const [statuses, followers, following, reports, media] = await Promise.all([
    rt.db
      .selectFrom("statuses")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .where("account_id", "in", theirs)
      .where("deleted_at", "is", null)
      .executeTakeFirst(),
    rt.db
      .selectFrom("follows")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .where("account_id", "in", theirs)
      .where("target_account_id", "in", ours)
      .executeTakeFirst(),
    rt.db
      .selectFrom("follows")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .where("account_id", "in", ours)
      .where("target_account_id", "in", theirs)
      .executeTakeFirst(),
    rt.db
      .selectFrom("reports")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .where("target_account_id", "in", theirs)
      .executeTakeFirst(),
    rt.db
      .selectFrom("media_attachments")
      .select((eb) => eb.fn.sum<number | string | null>("file_size").as("n"))
      .where("account_id", "in", theirs)
      .executeTakeFirst(),
  ]);
  const [instance] = await withHealth(rt, [{ domain: name, accounts: count(accounts) }]);
  return {
    ...instance!,
    figures: {
      statuses: count(statuses),
      followers: count(followers),
      following: count(following),
      reports: count(reports),
      mediaBytes: Number(media?.n ?? 0),
    },
  };
}
