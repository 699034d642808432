// What one row of an import does, through the same service functions the API calls (follow, block,
// mute, domain block, bookmark, list membership), and what an overwrite takes away afterwards.
// Accounts of other servers are looked up there (WebFinger) the first time; follows of locked or
// remote accounts become requests, as they do when asked through the API.

import { normalizeDomain } from "../../domain/domain_names.ts";
import { ApiError } from "../../domain/errors.ts";
import type { Runtime } from "../../runtime.ts";
import { knownAccounts, lookupAccount } from "../accounts/accounts.ts";
import { addMembers, createList, deleteList, listsOf, removeMembers } from "../feeds/lists.ts";
import { block, unblock } from "../relationships/blocks.ts";
import { follow, followMany, unfollow } from "../relationships/follows.ts";
import { mute, unmute } from "../relationships/mutes.ts";
import { blockDomain, unblockDomain } from "../relationships/user_domain_blocks.ts";
import { bookmark } from "../statuses/interactions.ts";
import type { ExportKind } from "./exports.ts";
import type { ImportRowData } from "./import_file.ts";

/** Why a row failed, in words for the person who uploaded it. */
export class RowFailure extends Error {}

/** A refusal of a service as a row's failure; anything else (a server away, a bug) is thrown on. */
function asRowFailure(error: unknown): RowFailure {
  if (error instanceof RowFailure) return error;
  if (error instanceof ApiError && error.status < 500) return new RowFailure(readable(error));
  throw error;
}

/** At most this many accounts of other servers are looked up at once for one chunk. */
const LOOKUPS_AT_ONCE = 4;

const text = (value: unknown) => (typeof value === "string" ? value : "");

/** The addresses a chunk's rows name that are known here, found at once rather than row by row. */
export function knownAddresses(rt: Runtime, rows: ImportRowData[]): Promise<Map<string, string>> {
  return knownAccounts(rt, rows.map((r) => text(r.acct)).filter(Boolean));
}

async function accountOf(rt: Runtime, acct: string, known: Map<string, string>): Promise<string> {
  if (!acct) throw new RowFailure("The account address is missing");
  const id = known.get(acct);
  if (id) return id;
  try {
    return (await lookupAccount(rt, acct)).id;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) throw new RowFailure(`No account ${acct} was found`);
    if (error instanceof ApiError && error.status === 410) throw new RowFailure(`The account ${acct} is suspended`);
    throw error;
  }
}

async function statusOf(rt: Runtime, uri: string): Promise<string> {
  if (!/^https?:\/\//i.test(uri)) throw new RowFailure("This is not the URL of a post");
  const row = await rt.db
    .selectFrom("statuses")
    .select("id")
    .where("uri", "=", uri)
    .where("deleted_at", "is", null)
    .executeTakeFirst();
  if (row) return row.id;
  const found = await rt.remote.url(rt, uri);
  if (!found || !("statusId" in found)) throw new RowFailure("No post was found at this address");
  return found.statusId;
}

/** The list titled `title`, made when there is none (as Mastodon's importer does). */
async function listNamed(rt: Runtime, accountId: string, title: string): Promise<string> {
  if (!title) throw new RowFailure("The list name is missing");
  const existing = (await listsOf(rt, accountId)).find((l) => l.title === title);
  return (existing ?? (await createList(rt, accountId, { title }))).id;
}

/**
 * Applies a chunk's rows for `accountId`; returns, in order, what each names (an account id, a
 * domain, a status id, or a list's title and an account id), which an overwrite keeps, or why it
 * failed. `known` holds the addresses knownAddresses found. Follows are made in one batch.
 */
export async function applyRows(
  rt: Runtime,
  accountId: string,
  kind: ExportKind,
  rows: ImportRowData[],
  known: Map<string, string>,
): Promise<(string | RowFailure)[]> {
  if (kind === "following") return applyFollows(rt, accountId, rows, known);
  const outcomes: (string | RowFailure)[] = [];
  for (const data of rows) {
    try {
      outcomes.push(await applyRow(rt, accountId, kind, data, known));
    } catch (error) {
      outcomes.push(asRowFailure(error));
    }
  }
  return outcomes;
}

/**
 * Follows the accounts of a chunk's rows with one followMany, with their options (Mastodon's
 * defaults: boosts shown, no notifications, all languages); those not known here are looked up
 * first, a few at once.
 */
async function applyFollows(rt: Runtime, accountId: string, rows: ImportRowData[], known: Map<string, string>) {
  const accts = rows.map((r) => text(r.acct));
  const unknown = [...new Set(accts.filter((a) => !known.has(a)))];
  const resolved = new Map<string, string | RowFailure>();
  let next = 0;
  const lookUp = async () => {
    while (next < unknown.length) {
      const acct = unknown[next++];
      try {
        resolved.set(acct, await accountOf(rt, acct, known));
      } catch (error) {
        resolved.set(acct, asRowFailure(error));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(LOOKUPS_AT_ONCE, unknown.length) }, lookUp));
  const outcomes = accts.map((acct) => known.get(acct) ?? resolved.get(acct)!);
  const items = rows.flatMap((data, index) => {
    const targetId = outcomes[index];
    if (typeof targetId !== "string") return [];
    const options = {
      reblogs: data.show_reblogs === null || data.show_reblogs === undefined ? true : data.show_reblogs === true,
      notify: data.notify === true,
      languages: Array.isArray(data.languages) ? data.languages : null,
    };
    return [{ index, targetId, options }];
  });
  const refusals = await followMany(rt, accountId, items);
  for (const [j, refusal] of refusals.entries()) if (refusal) outcomes[items[j].index] = asRowFailure(refusal);
  return outcomes;
}

/** Applies one row of any kind but follows, which applyFollows makes in batches. */
async function applyRow(
  rt: Runtime,
  accountId: string,
  kind: Exclude<ExportKind, "following">,
  data: ImportRowData,
  known: Map<string, string>,
): Promise<string> {
  switch (kind) {
    case "blocks": {
      const target = await accountOf(rt, text(data.acct), known);
      await block(rt, accountId, target);
      return target;
    }
    case "mutes": {
      const target = await accountOf(rt, text(data.acct), known);
      await mute(rt, accountId, target, { notifications: data.hide_notifications !== false });
      return target;
    }
    case "domain_blocks": {
      const domain = normalizeDomain(text(data.domain));
      if (!domain) throw new RowFailure("This is not a domain name");
      await blockDomain(rt, accountId, domain);
      return domain;
    }
    case "bookmarks": {
      const status = await statusOf(rt, text(data.uri));
      await bookmark(rt, accountId, status);
      return status;
    }
    case "lists": {
      const title = text(data.list_name);
      const listId = await listNamed(rt, accountId, title);
      const target = await accountOf(rt, text(data.acct), known);
      if (target !== accountId) await follow(rt, accountId, target, {});
      const member = await rt.db
        .selectFrom("list_accounts")
        .select("id")
        .where("list_id", "=", listId)
        .where("account_id", "=", target)
        .executeTakeFirst();
      if (!member) await addMembers(rt, accountId, listId, [target]);
      return memberKey(title, target);
    }
  }
}

/** A service's refusal, as a reason for the person reading the table of failed rows. */
function readable(error: ApiError): string {
  if (error.status === 404) return "Not found, or not visible to you";
  if (error.status === 403 && error.message === "This action is not allowed") return "Not allowed (blocked or moved)";
  return error.message.replace(/^Validation failed: /, "");
}

export const memberKey = (title: string, accountId: string) => `${title}\n${accountId}`;

const PRUNE_PAGE = 500;

/**
 * One page (in id order, after `after`) of what `accountId` has of `kind` and an overwrite may take
 * away: those not in `keep` are undone. Returns the page's last id, or null when it was the last.
 */
export async function prunePage(
  rt: Runtime,
  accountId: string,
  kind: ExportKind,
  keep: Set<string>,
  after: string | null,
): Promise<string | null> {
  if (kind === "lists") {
    // Lists are few (at most 50): one job goes through them all, as Mastodon's importer does,
    // removing lists the file does not name and the members it does not list.
    const titles = new Set([...keep].map((k) => k.split("\n")[0]));
    for (const list of await listsOf(rt, accountId)) {
      if (!titles.has(list.title)) {
        await deleteList(rt, accountId, list.id);
        continue;
      }
      const members = await rt.db
        .selectFrom("list_accounts")
        .select("account_id")
        .where("list_id", "=", list.id)
        .execute();
      const gone = members.map((m) => m.account_id).filter((id) => !keep.has(memberKey(list.title, id)));
      await removeMembers(rt, accountId, list.id, gone);
    }
    return null;
  }
  const table = (
    {
      following: "follows",
      blocks: "blocks",
      mutes: "mutes",
      domain_blocks: "account_domain_blocks",
      bookmarks: "bookmarks",
    } as const
  )[kind];
  let q = rt.db.selectFrom(table).selectAll().where("account_id", "=", accountId);
  if (after) q = q.where("id", ">", after);
  const rows = (await q.orderBy("id").limit(PRUNE_PAGE).execute()) as Record<string, unknown>[];
  for (const row of rows) {
    const key = String(row.target_account_id ?? row.domain ?? row.status_id);
    if (keep.has(key)) continue;
    if (kind === "following") await unfollow(rt, accountId, key);
    else if (kind === "blocks") await unblock(rt, accountId, key);
    else if (kind === "mutes") await unmute(rt, accountId, key);
    else if (kind === "domain_blocks") await unblockDomain(rt, accountId, key);
    // A bookmark of a post no longer visible is taken away all the same.
    else await rt.db.deleteFrom("bookmarks").where("id", "=", String(row.id)).execute();
  }
  return rows.length < PRUNE_PAGE ? null : String(rows[rows.length - 1].id);
}
