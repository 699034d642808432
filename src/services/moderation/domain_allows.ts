// The domains this server federates with in limited federation mode (Mastodon's domain allows),
// as `rookery domains allow` manages them.
import type { Selectable } from "kysely";
import type { DomainAllowsTable } from "../../db/schema.ts";
import { normalizeDomain } from "../../domain/domain_names.ts";
import { notFound, unprocessable } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import { instanceChanged } from "../instance/cached.ts";

export type DomainAllow = Selectable<DomainAllowsTable>;

export async function domainAllows(rt: Runtime): Promise<DomainAllow[]> {
  return rt.db.selectFrom("domain_allows").selectAll().orderBy("domain").execute();
}

/** Allows `input` (a domain, or a host with a port for servers on one machine); allowing twice is fine. */
export async function allowDomain(rt: Runtime, input: string): Promise<DomainAllow> {
  const [name, port] = input.trim().toLowerCase().split(":");
  const normal = normalizeDomain(name ?? "");
  if (!normal || (port !== undefined && !/^\d{1,5}$/.test(port))) {
    throw unprocessable("Validation failed: Domain is not a valid domain name");
  }
  const domain = port === undefined ? normal : `${normal}:${port}`;
  const now = new Date();
  await rt.db
    .insertInto("domain_allows")
    .values({ id: newId(), domain, created_at: now, updated_at: now })
    .onConflict((oc) => oc.column("domain").doNothing())
    .execute();
  await instanceChanged(rt);
  return rt.db.selectFrom("domain_allows").selectAll().where("domain", "=", domain).executeTakeFirstOrThrow();
}

export async function disallowDomain(rt: Runtime, domain: string): Promise<void> {
  const result = await rt.db
    .deleteFrom("domain_allows")
    .where("domain", "=", domain.trim().toLowerCase())
    .executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) throw notFound();
  await instanceChanged(rt);
}
