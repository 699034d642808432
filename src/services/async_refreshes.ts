// Mastodon's async refreshes (4.4): background work a request started, which a client may follow.
// The request answers at once with a `Mastodon-Async-Refresh: id="…", retry=3[, result_count=N]`
// header; GET /api/v1_alpha/async_refreshes/:id tells whether the work is running or finished. A
// refresh lives in the `kv` table under its key (a day while running, an hour once finished); its
// public id is the key signed with the server's secret, as Mastodon signs it, so that ids cannot be
// made up to learn what is being refreshed.
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Db } from "../db/index.ts";
import { notFound } from "../domain/errors.ts";
import type { Runtime } from "../runtime.ts";

export interface AsyncRefresh {
  id: string;
  status: "running" | "finished";
  result_count: number | null;
}

interface Stored {
  status: AsyncRefresh["status"];
  result_count: number | null;
}

const RUNNING_MS = 24 * 3600_000;
const FINISHED_MS = 3600_000;
/** Seconds a client waits before asking again, as Mastodon tells. */
export const RETRY_SECONDS = 3;

const kvKey = (key: string) => `async_refresh:${key}`;

function signature(rt: Runtime, key: string): string {
  return createHmac("sha256", rt.config.secretKeyBase).update(`async_refreshes:${key}`).digest("base64url");
}

const publicId = (rt: Runtime, key: string) => `${Buffer.from(key).toString("base64url")}--${signature(rt, key)}`;

/** The key a public id names, or null when its signature is not ours. */
function keyOf(rt: Runtime, id: string): string | null {
  const [encoded, signed, rest] = id.split("--");
  if (!encoded || !signed || rest !== undefined || id.length > 512) return null;
  const key = Buffer.from(encoded, "base64url").toString();
  const expected = Buffer.from(signature(rt, key));
  const given = Buffer.from(signed);
  return given.length === expected.length && timingSafeEqual(given, expected) ? key : null;
}

async function read(db: Db, key: string): Promise<Stored | null> {
  const row = await db
    .selectFrom("kv")
    .select(["value", "expires_at"])
    .where("key", "=", kvKey(key))
    .executeTakeFirst();
  if (!row || (row.expires_at && row.expires_at.getTime() <= Date.now())) return null;
  return row.value as Stored;
}

async function write(db: Db, key: string, stored: Stored, ttlMs: number): Promise<void> {
  const value = JSON.stringify(stored);
  const expires_at = new Date(Date.now() + ttlMs);
  await db
    .insertInto("kv")
    .values({ key: kvKey(key), value, expires_at })
    .onConflict((oc) => oc.column("key").doUpdateSet({ value, expires_at }))
    .execute();
}

const entity = (rt: Runtime, key: string, s: Stored): AsyncRefresh => ({
  id: publicId(rt, key),
  status: s.status,
  result_count: s.result_count,
});

/** The refresh under `key` while it runs, or null. */
export async function runningRefresh(rt: Runtime, key: string): Promise<AsyncRefresh | null> {
  const stored = await read(rt.db, key);
  return stored?.status === "running" ? entity(rt, key, stored) : null;
}

/** Starts a refresh under `key` (in the transaction `db` that enqueues its work), counting its results. */
export async function startRefresh(rt: Runtime, db: Db, key: string): Promise<AsyncRefresh> {
  const stored: Stored = { status: "running", result_count: 0 };
  await write(db, key, stored, RUNNING_MS);
  return entity(rt, key, stored);
}

/** Records the results so far of the refresh under `key`. */
export async function countResults(rt: Runtime, key: string, count: number): Promise<void> {
  await write(rt.db, key, { status: "running", result_count: count }, RUNNING_MS);
}

/** Marks the refresh under `key` finished (once: a second run of its job changes nothing). */
export async function finishRefresh(rt: Runtime, key: string): Promise<void> {
  const stored = await read(rt.db, key);
  if (stored?.status === "finished") return;
  await write(rt.db, key, { status: "finished", result_count: stored?.result_count ?? null }, FINISHED_MS);
}

/** The refresh a public id names (GET /api/v1_alpha/async_refreshes/:id), or a 404. */
export async function findRefresh(rt: Runtime, id: string): Promise<AsyncRefresh> {
  const key = keyOf(rt, id);
  const stored = key === null ? null : await read(rt.db, key);
  if (key === null || !stored) throw notFound();
  return entity(rt, key, stored);
}

/** The header value that tells a client about a running refresh. */
export function refreshHeader(refresh: AsyncRefresh): string {
  const count = refresh.result_count === null ? "" : `, result_count=${refresh.result_count}`;
  return `id="${refresh.id}", retry=${RETRY_SECONDS}${count}`;
}
