// Canonical email blocks (Mastodon's CanonicalEmailBlock): one person's address in all its
// spellings (dots and `+tags` in the local part, letter case) is kept from signing up again. Only a
// hash of the canonical form is stored.
import { createHash } from "node:crypto";
import type { Selectable } from "kysely";
import { type Page, type PageResult, paginate } from "../../db/paginate.ts";
import type { CanonicalEmailBlocksTable } from "../../db/schema.ts";
import { isEmailAddress } from "../../domain/emails.ts";
import { fieldError, notFound, validationFailed } from "../../domain/errors.ts";
import { isId, newId } from "../../domain/ids.ts";
import type { Runtime } from "../../runtime.ts";
import { logAction } from "./audit_log.ts";
import { requirePermission, type Staff } from "./staff.ts";

export type CanonicalEmailBlock = Selectable<CanonicalEmailBlocksTable>;

/** `John.Doe+news@Example.com` → the SHA-256 (hex) of `johndoe@example.com`. */
export function canonicalEmailHash(email: string): string {
  const [local, domain] = email
    .trim()
    .toLowerCase()
    .split(/@(?=[^@]*$)/);
  const canonical = `${local.replaceAll(".", "").split("+")[0]}@${domain ?? ""}`;
  return createHash("sha256").update(canonical).digest("hex");
}

export async function listCanonicalEmailBlocks(
  rt: Runtime,
  actor: Staff,
  page: Page,
): Promise<PageResult<CanonicalEmailBlock>> {
  requirePermission(actor, "manageBlocks");
  return paginate(rt.db.selectFrom("canonical_email_blocks").selectAll(), "id", page);
}

export async function getCanonicalEmailBlock(rt: Runtime, actor: Staff, id: string): Promise<CanonicalEmailBlock> {
  requirePermission(actor, "manageBlocks");
  const row = isId(id)
    ? await rt.db.selectFrom("canonical_email_blocks").selectAll().where("id", "=", id).executeTakeFirst()
    : null;
  if (!row) throw notFound();
  return row;
}

/** Blocks an address (`email`) or a hash already computed (`canonicalEmailHash`). */
export async function createCanonicalEmailBlock(
  rt: Runtime,
  actor: Staff,
  input: { email?: string; canonicalEmailHash?: string },
): Promise<CanonicalEmailBlock> {
  requirePermission(actor, "manageBlocks");
  let hash: string;
  if (input.email !== undefined) {
    if (!isEmailAddress(input.email.trim().toLowerCase())) throw validationFailed({ email: [fieldError.invalid()] });
    hash = canonicalEmailHash(input.email);
  } else if (input.canonicalEmailHash !== undefined) {
    hash = input.canonicalEmailHash.trim().toLowerCase();
    if (!/^[0-9a-f]{64}$/.test(hash)) throw validationFailed({ canonical_email_hash: [fieldError.invalid()] });
  } else throw validationFailed({ canonical_email_hash: [fieldError.blank] });
  const existing = await rt.db
    .selectFrom("canonical_email_blocks")
    .select("id")
    .where("canonical_email_hash", "=", hash)
    .executeTakeFirst();
  if (existing) throw validationFailed({ canonical_email_hash: [fieldError.taken] });
  const owner = input.email
    ? await rt.db
        .selectFrom("users")
        .select("account_id")
        .where("email", "=", input.email.trim().toLowerCase())
        .executeTakeFirst()
    : undefined;
  const row = {
    id: newId(),
    canonical_email_hash: hash,
    reference_account_id: owner?.account_id ?? null,
    created_at: new Date(),
  };
  await rt.db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto("canonical_email_blocks")
      .values(row)
      .onConflict((oc) => oc.column("canonical_email_hash").doNothing())
      .executeTakeFirst();
    // Blocked by a request at the same moment: taken, as if it had come first.
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) {
      throw validationFailed({ canonical_email_hash: [fieldError.taken] });
    }
    await logAction(trx, actor, {
      action: "create",
      targetType: "CanonicalEmailBlock",
      targetId: row.id,
      identifier: hash,
    });
  });
  return row;
}

export async function deleteCanonicalEmailBlock(rt: Runtime, actor: Staff, id: string): Promise<void> {
  const current = await getCanonicalEmailBlock(rt, actor, id);
  await rt.db.transaction().execute(async (trx) => {
    await trx.deleteFrom("canonical_email_blocks").where("id", "=", id).execute();
    await logAction(trx, actor, {
      action: "destroy",
      targetType: "CanonicalEmailBlock",
      targetId: id,
      identifier: current.canonical_email_hash,
    });
  });
}

/** The blocks that match an address (POST /api/v1/admin/canonical_email_blocks/test). */
export async function matchingCanonicalEmailBlocks(
  rt: Runtime,
  actor: Staff | null,
  email: string,
): Promise<CanonicalEmailBlock[]> {
  if (actor) requirePermission(actor, "manageBlocks");
  return rt.db
    .selectFrom("canonical_email_blocks")
    .selectAll()
    .where("canonical_email_hash", "=", canonicalEmailHash(email))
    .execute();
}
