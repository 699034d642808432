// A person's own domain blocks: everything from a server they do not want to hear from. Blocking a
// domain hides its accounts and cuts the ties with them, as Mastodon's
// AfterBlockDomainFromAccountService does: their notifications go, follows of them end, their
// follows and follow requests are removed.

import type { Db } from "../../db/index.ts";
import { type Page, type PageResult, paginate } from "../../db/paginate.ts";
import { normalizeDomain } from "../../domain/domain_names.ts";
import { unprocessable } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import { blocksChanged } from "../visibility/blocks_involved.ts";
import { deleteFollow, deleteFollowRequest } from "./follow_graph.ts";

/** The domain as stored, or the 422 Mastodon answers for a missing or malformed one. */
function validDomain(input: string | undefined): string {
  if (input === undefined || input.trim() === "") throw unprocessable("Validation failed: Domain can't be blank");
  const domain = normalizeDomain(input);
  if (!domain) throw unprocessable("Validation failed: Domain is invalid");
  return domain;
}

export async function blockDomain(rt: Runtime, accountId: string, input: string | undefined): Promise<void> {
  const domain = validDomain(input);
  await rt.db.transaction().execute(async (trx) => {
    await trx
      .insertInto("account_domain_blocks")
      .values({ id: newId(), account_id: accountId, domain, created_at: new Date() })
      .onConflict((oc) => oc.columns(["account_id", "domain"]).doNothing())
      .execute();
    await cutTies(rt, trx, accountId, domain);
  });
  await blocksChanged(rt);
}

async function cutTies(rt: Runtime, db: Db, accountId: string, domain: string): Promise<void> {
  const ofDomain = db.selectFrom("accounts").select("id").where("domain", "=", domain);
  await db
    .deleteFrom("notifications")
    .where("account_id", "=", accountId)
    .where("from_account_id", "in", ofDomain)
    .execute();
  const following = await db
    .selectFrom("follows")
    .select("target_account_id")
    .where("account_id", "=", accountId)
    .where("target_account_id", "in", ofDomain)
    .execute();
  for (const f of following) await deleteFollow(rt, db, { sourceId: accountId, targetId: f.target_account_id });
  const followers = await db
    .selectFrom("follows")
    .select("account_id")
    .where("target_account_id", "=", accountId)
    .where("account_id", "in", ofDomain)
    .execute();
  for (const f of followers) await deleteFollow(rt, db, { sourceId: f.account_id, targetId: accountId });
  const requesters = await db
    .selectFrom("follow_requests")
    .select("account_id")
    .where("target_account_id", "=", accountId)
    .where("account_id", "in", ofDomain)
    .execute();
  for (const r of requesters) await deleteFollowRequest(db, { sourceId: r.account_id, targetId: accountId });
}

/** Removes the block of a domain, if there is one; a missing or malformed domain removes nothing. */
export async function unblockDomain(rt: Runtime, accountId: string, input: string | undefined): Promise<void> {
  const domain = input === undefined ? null : normalizeDomain(input);
  if (!domain) return;
  await rt.db
    .deleteFrom("account_domain_blocks")
    .where("account_id", "=", accountId)
    .where("domain", "=", domain)
    .execute();
}

/** The domains `accountId` blocks, newest block first. */
export function listDomainBlocks(
  rt: Runtime,
  accountId: string,
  page: Page,
): Promise<PageResult<{ id: string; domain: string }>> {
  const q = rt.db.selectFrom("account_domain_blocks").select(["id", "domain"]).where("account_id", "=", accountId);
  return paginate(q, "id", page);
}
