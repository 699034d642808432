// IP blocks (Mastodon's IpBlock): networks whose sign-ups need approval (sign_up_requires_approval),
// are refused (sign_up_block), or that may not use the server at all (no_access: every request is
// refused, as Mastodon's Rack::Attack blocklist does). A block may expire.
import type { Selectable } from "kysely";
import { type Page, type PageResult, paginate } from "../../db/paginate.ts";
import type { IpBlockSeverity, IpBlocksTable } from "../../db/schema.ts";
import { fieldError, notFound, validationFailed } from "../../domain/errors.ts";
import { isId, newId } from "../../domain/ids.ts";
import { contains, formatNetwork, type Network, parseAddress, parseNetwork } from "../../domain/ip_ranges.ts";
import type { Runtime } from "../../runtime.ts";
import { cached, invalidate } from "../cache.ts";
import { logAction } from "./audit_log.ts";
import { requirePermission, type Staff } from "./staff.ts";

export type IpBlock = Selectable<IpBlocksTable>;
export const SEVERITIES: readonly IpBlockSeverity[] = ["sign_up_requires_approval", "sign_up_block", "no_access"];
const COMMENT_MAX = 1000;
const NO_ACCESS = "ip_blocks:no_access";
// Changes drop the list in every process; the expiry only bounds a load that raced a change.
const NO_ACCESS_TTL_MS = 10 * 60_000;

/** The networks refused everything, read once per process (every request asks). */
function noAccessNetworks(rt: Runtime): Promise<{ network: Network; expiresAt: number }[]> {
  return cached(rt, NO_ACCESS, NO_ACCESS_TTL_MS, async () => {
    const rows = await rt.db
      .selectFrom("ip_blocks")
      .select(["ip", "expires_at"])
      .where("severity", "=", "no_access")
      .execute();
    return rows.flatMap((r) => {
      const network = parseNetwork(r.ip);
      return network ? [{ network, expiresAt: r.expires_at ? r.expires_at.getTime() : Number.POSITIVE_INFINITY }] : [];
    });
  });
}

/**
 * Whether a live no_access block covers `ip`. While the database cannot be read (and the list is
 * not in memory) nobody is refused, so that what needs no database still answers.
 */
export async function accessRefused(rt: Runtime, ip: string): Promise<boolean> {
  const blocks = await noAccessNetworks(rt).catch(() => []);
  if (blocks.length === 0) return false;
  const address = parseAddress(ip);
  const now = Date.now();
  return address !== null && blocks.some((b) => b.expiresAt > now && contains(b.network, address));
}

export async function listIpBlocks(rt: Runtime, actor: Staff, page: Page): Promise<PageResult<IpBlock>> {
  requirePermission(actor, "manageBlocks");
  return paginate(rt.db.selectFrom("ip_blocks").selectAll(), "id", page);
}

export async function getIpBlock(rt: Runtime, actor: Staff, id: string): Promise<IpBlock> {
  requirePermission(actor, "manageBlocks");
  const row = isId(id) ? await rt.db.selectFrom("ip_blocks").selectAll().where("id", "=", id).executeTakeFirst() : null;
  if (!row) throw notFound();
  return row;
}

export interface IpBlockInput {
  ip?: string;
  severity?: string;
  comment?: string;
  /** Seconds from now; null for never. */
  expiresIn?: number | null;
}

/** The columns an input sets, validated; `current` is the block being changed, if any. */
function columns(input: IpBlockInput, current: IpBlock | null) {
  const network = input.ip === undefined ? null : parseNetwork(input.ip);
  if (input.ip === undefined && !current) throw validationFailed({ ip: [fieldError.blank] });
  if (input.ip !== undefined && !network) throw validationFailed({ ip: [fieldError.invalid()] });
  const severity = input.severity ?? current?.severity;
  if (!severity) throw validationFailed({ severity: [fieldError.blank] });
  if (!SEVERITIES.includes(severity as IpBlockSeverity)) throw validationFailed({ severity: [fieldError.inclusion] });
  const comment = input.comment ?? current?.comment ?? "";
  if ([...comment].length > COMMENT_MAX) throw validationFailed({ comment: [fieldError.tooLong(COMMENT_MAX)] });
  if (input.expiresIn !== undefined && input.expiresIn !== null && input.expiresIn <= 0)
    throw validationFailed({ expires_in: [fieldError.invalid()] });
  return {
    ip: network ? formatNetwork(network) : current!.ip,
    severity: severity as IpBlockSeverity,
    comment,
    expires_at:
      input.expiresIn === undefined
        ? (current?.expires_at ?? null)
        : input.expiresIn === null
          ? null
          : new Date(Date.now() + input.expiresIn * 1000),
    updated_at: new Date(),
  };
}

async function taken(rt: Runtime, ip: string, except: string | null): Promise<boolean> {
  let q = rt.db.selectFrom("ip_blocks").select("id").where("ip", "=", ip);
  if (except) q = q.where("id", "!=", except);
  return (await q.executeTakeFirst()) !== undefined;
}

export async function createIpBlock(rt: Runtime, actor: Staff, input: IpBlockInput): Promise<IpBlock> {
  requirePermission(actor, "manageBlocks");
  const values = columns(input, null);
  if (await taken(rt, values.ip, null)) throw validationFailed({ ip: [fieldError.taken] });
  const row = { id: newId(), created_at: new Date(), ...values };
  await rt.db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto("ip_blocks")
      .values(row)
      .onConflict((oc) => oc.column("ip").doNothing())
      .executeTakeFirst();
    // Blocked by a request at the same moment: taken, as if it had come first.
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) throw validationFailed({ ip: [fieldError.taken] });
    await logAction(trx, actor, { action: "create", targetType: "IpBlock", targetId: row.id, identifier: row.ip });
  });
  await invalidate(rt, NO_ACCESS);
  return row;
}

export async function updateIpBlock(rt: Runtime, actor: Staff, id: string, input: IpBlockInput): Promise<IpBlock> {
  const current = await getIpBlock(rt, actor, id);
  const values = columns(input, current);
  if (await taken(rt, values.ip, id)) throw validationFailed({ ip: [fieldError.taken] });
  await rt.db.transaction().execute(async (trx) => {
    await trx.updateTable("ip_blocks").set(values).where("id", "=", id).execute();
    await logAction(trx, actor, { action: "update", targetType: "IpBlock", targetId: id, identifier: values.ip });
  });
  await invalidate(rt, NO_ACCESS);
  return { ...current, ...values };
}

export async function deleteIpBlock(rt: Runtime, actor: Staff, id: string): Promise<void> {
  const current = await getIpBlock(rt, actor, id);
  await rt.db.transaction().execute(async (trx) => {
    await trx.deleteFrom("ip_blocks").where("id", "=", id).execute();
    await logAction(trx, actor, { action: "destroy", targetType: "IpBlock", targetId: id, identifier: current.ip });
  });
  await invalidate(rt, NO_ACCESS);
}

/** The strictest live block covering `ip`, or null. */
export async function ipSeverity(rt: Runtime, ip: string | null): Promise<IpBlockSeverity | null> {
  const address = ip ? parseAddress(ip) : null;
  if (!address) return null;
  const now = new Date();
  const blocks = await rt.db.selectFrom("ip_blocks").select(["ip", "severity", "expires_at"]).execute();
  let strictest: IpBlockSeverity | null = null;
  for (const b of blocks) {
    if (b.expires_at && b.expires_at <= now) continue;
    const network = parseNetwork(b.ip);
    if (!network || !contains(network, address)) continue;
    if (strictest === null || SEVERITIES.indexOf(b.severity) > SEVERITIES.indexOf(strictest)) strictest = b.severity;
  }
  return strictest;
}
