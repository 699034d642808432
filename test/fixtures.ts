// What the tests keep making: statuses, follows, blocks and mutes through the API, and, straight in the
// database, the rows no API writes yet (accounts of other servers, account states) and the rows to check.
import assert from "node:assert/strict";
import type { Insertable, Updateable } from "kysely";
import type { AccountsTable } from "../src/db/schema.ts";
import { newId } from "../src/domain/ids.ts";
import { accountRow, insertAccount } from "../src/services/accounts/account_row.ts";
import { indexStatus } from "../src/services/search/status_index.ts";
import type { TestServer, TestUser, UserOptions } from "./rig.ts";

let made = 0;
/** A user with a fresh name (`alice1`, `bob2`…), for tests that share a server but not relationships. */
export function freshUser(server: TestServer, name: string, options?: UserOptions) {
  return server.user(`${name}${++made}`, options);
}

/** Posts a status as `user` (its text, or the whole POST /api/v1/statuses body) and returns the Status. */
export async function post(server: TestServer, user: TestUser, input: string | Record<string, unknown>): Promise<any> {
  const json = typeof input === "string" ? { status: input } : input;
  const res = await server.post("/api/v1/statuses", { token: user.token, json });
  assert.equal(res.status, 200, res.text);
  // Mention notifications and conversations are written by a job after the post (which waits, on
  // a server without a worker, for a test that runs the jobs itself).
  if (server.worker) await server.settle();
  return res.body;
}

/**
 * A status row put in directly, without anything posting sets off (feeds, notifications,
 * counters), for tests of what happens around a status rather than of posting it.
 */
export async function insertStatus(
  server: TestServer,
  accountId: string,
  {
    visibility = "public",
    local = true,
    content = "",
  }: { visibility?: "public" | "unlisted" | "private"; local?: boolean; content?: string } = {},
): Promise<string> {
  const id = newId();
  const now = new Date();
  await server.rt.db
    .insertInto("statuses")
    .values({
      id,
      uri: local ? `${server.url}/s/${id}` : `https://remote.example/statuses/${id}`,
      account_id: accountId,
      local,
      visibility,
      content,
      created_at: now,
      updated_at: now,
    })
    .execute();
  // Found by search as the statuses of other servers will be once they arrive.
  await indexStatus(server.rt.db, server.rt.dialect, id);
  return id;
}

/** `from` follows `to` (with the follow's options: reblogs, notify, languages) and gets the Relationship. */
export function follow(server: TestServer, from: TestUser, to: TestUser, options: Record<string, unknown> = {}) {
  return accountAction(server, from, "follow", to, options);
}

export function block(server: TestServer, from: TestUser, to: TestUser) {
  return accountAction(server, from, "block", to);
}

/** `from` mutes `to` (with the mute's options: notifications, duration). */
export function mute(server: TestServer, from: TestUser, to: TestUser, options: Record<string, unknown> = {}) {
  return accountAction(server, from, "mute", to, options);
}

async function accountAction(
  server: TestServer,
  from: TestUser,
  action: string,
  to: TestUser,
  options: Record<string, unknown> = {},
): Promise<any> {
  const res = await server.post(`/api/v1/accounts/${to.accountId}/${action}`, { token: from.token, json: options });
  assert.equal(res.status, 200, res.text);
  return res.body;
}

/** A locked `target` accepts the follow request of `follower`. */
export async function acceptFollow(server: TestServer, target: TestUser, follower: TestUser): Promise<void> {
  const res = await server.post(`/api/v1/follow_requests/${follower.accountId}/authorize`, { token: target.token });
  assert.equal(res.status, 200, res.text);
}

/** An account of another server, as federation stores it; `columns` set anything else. */
export async function remoteAccount(
  server: TestServer,
  username: string,
  domain: string,
  columns: Partial<Insertable<AccountsTable>> = {},
): Promise<string> {
  const uri = `https://${domain}/users/${username}`;
  const row = accountRow({
    username,
    domain,
    uri,
    url: `https://${domain}/@${username}`,
    inbox_url: `${uri}/inbox`,
    fetched_at: new Date(),
    ...columns,
  });
  return insertAccount(server.rt.db, row);
}

/** Sets account states no API sets yet (locked, silenced, suspended…). */
export async function setAccount(server: TestServer, id: string, patch: Updateable<AccountsTable>): Promise<void> {
  await server.rt.db.updateTable("accounts").set(patch).where("id", "=", id).execute();
}

/** [followers_count, following_count] */
export async function counts(server: TestServer, id: string): Promise<[number, number]> {
  const s = await server.rt.db
    .selectFrom("account_stats")
    .select(["followers_count", "following_count"])
    .where("account_id", "=", id)
    .executeTakeFirstOrThrow();
  return [s.followers_count, s.following_count];
}

/** The notification rows an account received, oldest first. */
export async function notificationsOf(server: TestServer, recipientId: string) {
  return server.rt.db
    .selectFrom("notifications")
    .select(["id", "type", "from_account_id", "group_key", "status_id"])
    .where("account_id", "=", recipientId)
    .orderBy("id")
    .execute();
}
