// Aliases, as Mastodon's AccountAlias: the other accounts a local member says are also theirs,
// named by `user@domain` or an actor URL and found as the search would find them (WebFinger, then
// the actor). Their URIs are the account's `alsoKnownAs`, which a server checks before it lets one
// of them move here; other servers learn of a change by an Update of the actor.
import { type ApiError, notFound, unprocessable, validationFailed } from "../../domain/errors.ts";
import { isId, newId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import { publishEvent } from "../../streaming/events.ts";
import { federate } from "../federation/outbox.ts";

/** Mastodon keeps no limit; this keeps an actor document of a sane size. */
const MAX_ALIASES = 20;
/** `user@domain` or a URL longer than this names nothing. */
const MAX_NAME = 2048;

export interface Alias {
  id: string;
  acct: string;
  uri: string;
  created_at: Date;
}

/** What is wrong with the handle a person gave (`acct`), with a code the pages put in their words. */
export const handleProblem = (error: string, description: string): ApiError =>
  validationFailed({ acct: [{ error, description }] }, { acct: "Handle" });

/** What a person typed to name an account: without spaces, a leading @ or a scheme's case. */
export function normalizeAccountName(text: string): string {
  return text.trim().replace(/^@/, "");
}

/**
 * The account `name` names, `user@domain` (or a local `user`) or an actor URL, read from its server
 * when new here; null when it is nowhere to be found. Its `acct` is `user@domain` (local: `user`).
 */
export async function findAccountByName(rt: Runtime, text: string) {
  const name = normalizeAccountName(text);
  if (name === "" || name.length > MAX_NAME || name.includes("\0")) return null;
  let id: string | null = null;
  if (/^https?:\/\//i.test(name)) {
    const local = await rt.db
      .selectFrom("accounts")
      .select("id")
      .where((eb) => eb.or([eb("uri", "=", name), eb("url", "=", name)]))
      .executeTakeFirst();
    const found = local ? null : await rt.remote.url(rt, name).catch(() => null);
    id = local?.id ?? (found && "accountId" in found ? found.accountId : null);
  } else {
    const [username, domain, extra] = name.split("@");
    if (!username || extra !== undefined || !/^[\w.-]+$/.test(username)) return null;
    const host = domain?.toLowerCase();
    if (!host || host === rt.config.localDomain) {
      const local = await rt.db
        .selectFrom("accounts")
        .select("id")
        .where("acct_key", "=", `${username.toLowerCase()}@`)
        .executeTakeFirst();
      id = local?.id ?? null;
    } else {
      id = await rt.remote.account(rt, username, host).catch(() => null);
    }
  }
  if (!id) return null;
  const row = await rt.db
    .selectFrom("accounts")
    .select(["id", "username", "domain", "uri", "suspended_at"])
    .where("id", "=", id)
    .executeTakeFirst();
  if (!row || row.suspended_at !== null) return null;
  return {
    id: row.id,
    uri: row.uri,
    domain: row.domain,
    acct: row.domain ? `${row.username}@${row.domain}` : row.username,
  };
}

export function listAliases(rt: Runtime, accountId: string): Promise<Alias[]> {
  return rt.db
    .selectFrom("account_aliases")
    .select(["id", "acct", "uri", "created_at"])
    .where("account_id", "=", accountId)
    .orderBy("id")
    .execute();
}

/** Adds the account `name` names as an alias of `accountId`; adding one again changes nothing. */
export async function addAlias(rt: Runtime, accountId: string, name: string): Promise<Alias> {
  const found = await findAccountByName(rt, name);
  if (!found) throw handleProblem("ERR_NOT_FOUND", "can't be found");
  if (found.id === accountId) throw handleProblem("ERR_SELF", "cannot be your own account");
  const alias = await rt.db.transaction().execute(async (trx) => {
    const existing = await trx
      .selectFrom("account_aliases")
      .select(["id", "acct", "uri", "created_at"])
      .where("account_id", "=", accountId)
      .where("uri", "=", found.uri)
      .executeTakeFirst();
    if (existing) return existing;
    const count = await trx
      .selectFrom("account_aliases")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("account_id", "=", accountId)
      .executeTakeFirstOrThrow();
    if (Number(count.n) >= MAX_ALIASES) throw unprocessable(`Validation failed: At most ${MAX_ALIASES} aliases`);
    const row = { id: newId(), account_id: accountId, acct: found.acct, uri: found.uri, created_at: new Date() };
    await trx
      .insertInto("account_aliases")
      .values(row)
      .onConflict((oc) => oc.columns(["account_id", "uri"]).doNothing())
      .execute();
    await keepAlsoKnownAs(rt, trx, accountId);
    return row;
  });
  await publishEvent(rt, "account.changed", { id: accountId });
  return { id: alias.id, acct: alias.acct, uri: alias.uri, created_at: alias.created_at };
}

/** Removes an alias of `accountId`; 404 when it has none by that id. */
export async function removeAlias(rt: Runtime, accountId: string, aliasId: string): Promise<void> {
  await rt.db.transaction().execute(async (trx) => {
    const deleted = await trx
      .deleteFrom("account_aliases")
      .where("account_id", "=", accountId)
      .where("id", "=", isId(aliasId) ? aliasId : "0")
      .returning("id")
      .executeTakeFirst();
    if (!deleted) throw notFound();
    await keepAlsoKnownAs(rt, trx, accountId);
  });
  await publishEvent(rt, "account.changed", { id: accountId });
}

/** The account's `alsoKnownAs` from its aliases, told to other servers. */
async function keepAlsoKnownAs(rt: Runtime, trx: Parameters<typeof federate>[1], accountId: string) {
  const uris = await trx
    .selectFrom("account_aliases")
    .select("uri")
    .where("account_id", "=", accountId)
    .orderBy("id")
    .execute();
  await trx
    .updateTable("accounts")
    .set({ also_known_as: JSON.stringify(uris.map((u) => u.uri)) })
    .where("id", "=", accountId)
    .execute();
  await federate(rt, trx, accountId, { type: "UpdateActor", accountId });
}
