// What this server knows of its contact with each other server, kept in the `kv` table so that
// every process sees it: the circuit breaker of deliveries (consecutive failures, and until when
// no delivery is tried), and when a delivery last succeeded and an activity last came in. Delivery
// (src/federation/delivery.ts) and the inbox write it; the web admin's servers page and dashboard
// read it.
import type { Runtime } from "../../runtime.ts";

export interface Breaker {
  /** Deliveries that failed in a row. */
  failures: number;
  /** No delivery is tried before then (ms since epoch); in the past when the breaker is closed. */
  openUntil: number;
}

type Contact = "delivered" | "received";

const BREAKER = "federation:breaker:";
const PREFIX: Record<Contact, string> = { delivered: "federation:delivered:", received: "federation:received:" };

/** A contact is written at most this often per server and process: the page shows it to the minute or so. */
const CONTACT_EVERY_MS = 5 * 60_000;
/** Servers remembered per process before the memory of writes starts over. */
const MAX_REMEMBERED = 10_000;
const lastWritten = new WeakMap<Runtime, Map<string, number>>();

async function put(rt: Runtime, key: string, value: unknown): Promise<void> {
  const json = JSON.stringify(value);
  await rt.db
    .insertInto("kv")
    .values({ key, value: json, expires_at: null })
    .onConflict((oc) => oc.column("key").doUpdateSet({ value: json }))
    .execute();
}

export async function readBreaker(rt: Runtime, host: string): Promise<Breaker | null> {
  const row = await rt.db
    .selectFrom("kv")
    .select("value")
    .where("key", "=", BREAKER + host)
    .executeTakeFirst();
  return (row?.value as Breaker | undefined) ?? null;
}

/** Sets a server's breaker, or (null) closes it after a success. */
export async function writeBreaker(rt: Runtime, host: string, breaker: Breaker | null): Promise<void> {
  if (breaker) await put(rt, BREAKER + host, breaker);
  else
    await rt.db
      .deleteFrom("kv")
      .where("key", "=", BREAKER + host)
      .execute();
}

/** Notes that a delivery to `host` succeeded, or that an activity came in from it, now. */
export async function recordContact(rt: Runtime, host: string, kind: Contact): Promise<void> {
  const key = PREFIX[kind] + host.toLowerCase();
  const now = Date.now();
  const written = lastWritten.get(rt) ?? new Map<string, number>();
  lastWritten.set(rt, written);
  if ((written.get(key) ?? 0) > now - CONTACT_EVERY_MS) return;
  if (written.size >= MAX_REMEMBERED) written.clear();
  written.set(key, now);
  await put(rt, key, new Date(now).toISOString());
}

export interface ServerHealth {
  host: string;
  failures: number;
  /** When the breaker is open, until when; null when deliveries are tried. */
  unavailableUntil: Date | null;
  lastDelivered: Date | null;
  lastReceived: Date | null;
}

const blank = (host: string): ServerHealth => ({
  host,
  failures: 0,
  unavailableUntil: null,
  lastDelivered: null,
  lastReceived: null,
});

/** What is known of the given servers, or (null) of every server something is known of. */
export async function serverHealth(rt: Runtime, hosts: string[] | null): Promise<Map<string, ServerHealth>> {
  const all = Object.values(PREFIX).concat(BREAKER);
  let query = rt.db.selectFrom("kv").select(["key", "value"]);
  query =
    hosts === null
      ? query.where((eb) => eb.or(all.map((prefix) => eb("key", "like", `${prefix}%`))))
      : query.where(
          "key",
          "in",
          hosts.length === 0 ? [""] : hosts.flatMap((h) => all.map((prefix) => prefix + h.toLowerCase())),
        );
  const out = new Map<string, ServerHealth>();
  const now = Date.now();
  for (const row of await query.execute()) {
    const prefix = all.find((p) => row.key.startsWith(p))!;
    const host = row.key.slice(prefix.length);
    const health = out.get(host) ?? blank(host);
    out.set(host, health);
    if (prefix === BREAKER) {
      const breaker = row.value as Breaker;
      health.failures = breaker.failures;
      health.unavailableUntil = breaker.openUntil > now ? new Date(breaker.openUntil) : null;
    } else {
      const at = new Date(String(row.value));
      if (prefix === PREFIX.delivered) health.lastDelivered = at;
      else health.lastReceived = at;
    }
  }
  return out;
}

/** Servers whose deliveries are failing now, most failures first. */
export async function failingServers(rt: Runtime): Promise<ServerHealth[]> {
  const breakers = await rt.db.selectFrom("kv").select("key").where("key", "like", `${BREAKER}%`).execute();
  const health = await serverHealth(
    rt,
    breakers.map((r) => r.key.slice(BREAKER.length)),
  );
  return [...health.values()].filter((h) => h.failures > 0).sort((a, b) => b.failures - a.failures);
}
