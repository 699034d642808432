// Database shortcuts for the relationship tests: account states no API sets yet (locked, silenced,
// suspended, hidden network), accounts and statuses of other servers, and the rows to check.
import type { Updateable } from "kysely";
import type { AccountsTable } from "../src/db/schema.ts";
import { newId } from "../src/domain/ids.ts";
import type { TestServer } from "./rig.ts";

export async function setAccount(server: TestServer, id: string, patch: Updateable<AccountsTable>) {
  await server.rt.db.updateTable("accounts").set(patch).where("id", "=", id).execute();
}

/** An account of another server, as federation will store it. */
export async function remoteAccount(server: TestServer, username: string, domain: string): Promise<string> {
  const id = newId();
  const now = new Date();
  await server.rt.db
    .insertInto("accounts")
    .values({
      id,
      username,
      domain,
      acct_key: `${username.toLowerCase()}@${domain}`,
      uri: `https://${domain}/users/${username}`,
      url: `https://${domain}/@${username}`,
      inbox_url: `https://${domain}/users/${username}/inbox`,
      shared_inbox_url: null,
      outbox_url: null,
      followers_url: null,
      following_url: null,
      featured_url: null,
      avatar_file: null,
      avatar_remote_url: null,
      header_file: null,
      header_remote_url: null,
      discoverable: null,
      public_key: null,
      private_key: null,
      moved_to_account_id: null,
      suspended_at: null,
      silenced_at: null,
      fetched_at: now,
      created_at: now,
      updated_at: now,
    })
    .execute();
  await server.rt.db.insertInto("account_stats").values({ account_id: id, last_status_at: null }).execute();
  return id;
}

/** A status written straight into the database: by an account of another server unless `local`. */
export async function insertStatus(
  server: TestServer,
  accountId: string,
  { visibility = "public", local = false }: { visibility?: "public" | "unlisted"; local?: boolean } = {},
): Promise<string> {
  const id = newId();
  const now = new Date();
  await server.rt.db
    .insertInto("statuses")
    .values({
      id,
      uri: local ? `${server.url}/users/x/statuses/${id}` : `https://remote.example/statuses/${id}`,
      url: null,
      account_id: accountId,
      local,
      visibility,
      language: "en",
      in_reply_to_id: null,
      in_reply_to_account_id: null,
      reblog_of_id: null,
      conversation_id: null,
      application_id: null,
      created_at: now,
      updated_at: now,
      edited_at: null,
      deleted_at: null,
    })
    .execute();
  return id;
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

/** The notifications an account received, oldest first, as `type from` pairs. */
export async function notificationsOf(server: TestServer, recipientId: string) {
  return server.rt.db
    .selectFrom("notifications")
    .select(["id", "type", "from_account_id", "group_key", "status_id"])
    .where("account_id", "=", recipientId)
    .orderBy("id")
    .execute();
}
