// Email domain blocks (Mastodon's EmailDomainBlock): sign-ups with an address at a blocked domain,
// or at one of its subdomains, are refused, or need approval when the block allows that. Each
// block counts the sign-up attempts it met, per day: attempts and distinct addresses (its history).
import { type Selectable, sql } from "kysely";
import type { Db } from "../../db/index.ts";
import { type Page, type PageResult, paginate } from "../../db/paginate.ts";
import type { EmailDomainBlocksTable } from "../../db/schema.ts";
import { fieldError, notFound, validationFailed } from "../../domain/errors.ts";
import { isId, newId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import { logAction } from "./audit_log.ts";
import { requirePermission, type Staff } from "./staff.ts";

/** One day of a block's history: the day (Unix seconds of its start), addresses and attempts. */
export interface AttemptDay {
  day: string;
  accounts: string;
  uses: string;
}

export type EmailDomainBlock = Selectable<EmailDomainBlocksTable> & { history: AttemptDay[] };

const DAY_MS = 86_400_000;
const HISTORY_DAYS = 7;
const today = () => Math.floor(Date.now() / DAY_MS);

/** The last week of each block's attempts, newest day first, days without any included. */
async function withHistory(rt: Runtime, rows: Selectable<EmailDomainBlocksTable>[]): Promise<EmailDomainBlock[]> {
  const first = today() - HISTORY_DAYS + 1;
  const counts =
    rows.length === 0
      ? []
      : await rt.db
          .selectFrom("email_domain_block_attempts")
          .select(["block_id", "day", (eb) => eb.fn.countAll().as("accounts"), (eb) => eb.fn.sum("uses").as("uses")])
          .where(
            "block_id",
            "in",
            rows.map((r) => r.id),
          )
          .where("day", ">=", first)
          .groupBy(["block_id", "day"])
          .execute();
  const byKey = new Map(counts.map((c) => [`${c.block_id}:${c.day}`, c]));
  return rows.map((row) => ({
    ...row,
    history: Array.from({ length: HISTORY_DAYS }, (_, i) => {
      const day = today() - i;
      const c = byKey.get(`${row.id}:${day}`);
      return { day: String((day * DAY_MS) / 1000), accounts: String(c?.accounts ?? 0), uses: String(c?.uses ?? 0) };
    }),
  }));
}

export async function listEmailDomainBlocks(
  rt: Runtime,
  actor: Staff,
  page: Page,
): Promise<PageResult<EmailDomainBlock>> {
  requirePermission(actor, "manageBlocks");
  const result = await paginate(rt.db.selectFrom("email_domain_blocks").selectAll(), "id", page);
  return { ...result, items: await withHistory(rt, result.items) };
}

export async function getEmailDomainBlock(rt: Runtime, actor: Staff, id: string): Promise<EmailDomainBlock> {
  requirePermission(actor, "manageBlocks");
  const row = isId(id)
    ? await rt.db.selectFrom("email_domain_blocks").selectAll().where("id", "=", id).executeTakeFirst()
    : null;
  if (!row) throw notFound();
  return (await withHistory(rt, [row]))[0];
}

/** `Mail.Example.com.` → `mail.example.com`; null when it is no domain name. */
function normalize(domain: string): string | null {
  const d = domain.trim().toLowerCase().replace(/\.$/, "");
  return /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/.test(d)
    ? d
    : null;
}

export async function createEmailDomainBlock(
  rt: Runtime,
  actor: Staff,
  input: { domain?: string; allowWithApproval?: boolean },
): Promise<EmailDomainBlock> {
  requirePermission(actor, "manageBlocks");
  if (!input.domain?.trim()) throw validationFailed({ domain: [fieldError.blank] });
  const domain = normalize(input.domain);
  if (!domain) throw validationFailed({ domain: [fieldError.invalid()] });
  const existing = await rt.db
    .selectFrom("email_domain_blocks")
    .select("id")
    .where("domain", "=", domain)
    .executeTakeFirst();
  if (existing) throw validationFailed({ domain: [fieldError.taken] });
  const now = new Date();
  const row = {
    id: newId(),
    domain,
    allow_with_approval: input.allowWithApproval ?? false,
    created_at: now,
    updated_at: now,
  };
  await rt.db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto("email_domain_blocks")
      .values(row)
      .onConflict((oc) => oc.column("domain").doNothing())
      .executeTakeFirst();
    // Blocked by a request at the same moment: taken, as if it had come first.
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) throw validationFailed({ domain: [fieldError.taken] });
    await logAction(trx, actor, {
      action: "create",
      targetType: "EmailDomainBlock",
      targetId: row.id,
      identifier: domain,
    });
  });
  return (await withHistory(rt, [row]))[0];
}

export async function deleteEmailDomainBlock(rt: Runtime, actor: Staff, id: string): Promise<void> {
  const current = await getEmailDomainBlock(rt, actor, id);
  await rt.db.transaction().execute(async (trx) => {
    await trx.deleteFrom("email_domain_blocks").where("id", "=", id).execute();
    await logAction(trx, actor, {
      action: "destroy",
      targetType: "EmailDomainBlock",
      targetId: id,
      identifier: current.domain,
    });
  });
}

/** The blocks covering an address's domain or one of its parents. */
function blocksOf(db: Db, email: string) {
  const domain = email.slice(email.lastIndexOf("@") + 1).toLowerCase();
  const parts = domain.split(".");
  // The domain and each of its parents: a.b.example.com, b.example.com, example.com, com.
  const candidates = parts.map((_, i) => parts.slice(i).join("."));
  return db
    .selectFrom("email_domain_blocks")
    .select(["id", "allow_with_approval"])
    .where("domain", "in", candidates)
    .execute();
}

/**
 * Counts a sign-up attempt with `email` from `ip` in the history of every block covering it (as
 * Mastodon's matcher does with the attempt's address), and forgets days older than the history.
 */
export async function recordSignUpAttempt(rt: Runtime, email: string, ip: string | null): Promise<void> {
  const blocks = await blocksOf(rt.db, email);
  if (blocks.length === 0) return;
  const day = today();
  const table = "email_domain_block_attempts";
  await rt.db.transaction().execute(async (trx) => {
    for (const block of blocks) {
      await trx
        .insertInto(table)
        .values({ block_id: block.id, day, ip: ip ?? "", uses: 1 })
        .onConflict((oc) =>
          oc.columns(["block_id", "day", "ip"]).doUpdateSet({ uses: sql<number>`${sql.ref(`${table}.uses`)} + 1` }),
        )
        .execute();
    }
    await trx
      .deleteFrom(table)
      .where(
        "block_id",
        "in",
        blocks.map((b) => b.id),
      )
      .where("day", "<=", day - HISTORY_DAYS)
      .execute();
  });
}

/** What the blocks say of an address: refused, allowed only with approval, or free (null). */
export async function emailDomainVerdict(rt: Runtime, email: string): Promise<"blocked" | "approval" | null> {
  const blocks = await blocksOf(rt.db, email);
  if (blocks.length === 0) return null;
  return blocks.some((b) => !b.allow_with_approval) ? "blocked" : "approval";
}
