// Accounts of other servers: found by `user@domain` through WebFinger or by their actor URL, read
// through src/net, and kept in `accounts` (updated in place when the actor changes). Fedify parses
// the actor; this module maps it onto Rookery's columns.
import type { Context } from "@fedify/fedify";
import {
  type Actor,
  Application,
  Group,
  type Image,
  isActor,
  Organization,
  PropertyValue,
  Service,
} from "@fedify/fedify/vocab";
import { isLoopbackHost } from "../config.ts";
import type { AccountField } from "../db/schema.ts";
import { htmlToPlainText, sanitizeRemoteHtml } from "../domain/text/index.ts";
import { outgoing } from "../net/outgoing.ts";
import type { Runtime } from "../runtime.ts";
import { accountRow, insertAccount } from "../services/accounts/account_row.ts";
import { removeProfileImageFiles } from "../services/accounts/profile.ts";
import { profileImagesAfter } from "../services/media/remote_cache.ts";
import { publishEvent } from "../streaming/events.ts";
import { INSTANCE_ACTOR } from "./actor.ts";
import { keepEmojisOf } from "./emojis.ts";
import { peerPolicy, refused } from "./peers.ts";

/** A remote actor is read again when its row is older than this, as Mastodon does. */
const STALE_MS = 24 * 3600_000;

/** The URL scheme to reach a host: http only for loopback peers when private addresses are allowed. */
export function schemeFor(rt: Runtime, host: string): "http" | "https" {
  return rt.config.allowPrivateAddresses && isLoopbackHost(host) ? "http" : "https";
}

/** The actor URL `user@domain` names, by WebFinger; null when the server does not know it. */
export async function webFingerActorUrl(rt: Runtime, username: string, domain: string): Promise<string | null> {
  const resource = `acct:${username}@${domain}`;
  const url = `${schemeFor(rt, domain)}://${domain}/.well-known/webfinger?resource=${encodeURIComponent(resource)}`;
  const res = await outgoing(rt.config)(url, { headers: { accept: "application/jrd+json" }, timeoutMs: 10_000 });
  if (res.status !== 200) return null;
  let links: { rel?: string; type?: string; href?: string }[] = [];
  try {
    links = JSON.parse(res.body.toString("utf8")).links ?? [];
  } catch {
    return null;
  }
  const self = links.find(
    (l) => l.rel === "self" && (l.type === "application/activity+json" || (l.type ?? "").includes("activitystreams")),
  );
  return self?.href ?? null;
}

function actorType(actor: Actor): string {
  if (actor instanceof Service) return "Service";
  if (actor instanceof Application) return "Application";
  if (actor instanceof Group) return "Group";
  if (actor instanceof Organization) return "Organization";
  return "Person";
}

async function imageUrl(image: Promise<Image | null>): Promise<string | null> {
  const found = await image.catch(() => null);
  const url = found?.url;
  if (!url) return null;
  return url instanceof URL ? url.href : (url.href?.href ?? null);
}

async function fieldsOf(actor: Actor): Promise<AccountField[]> {
  const fields: AccountField[] = [];
  for await (const item of actor.getAttachments()) {
    if (!(item instanceof PropertyValue) || fields.length >= 16) continue;
    const name = String(item.name ?? "").slice(0, 255);
    const valueHtml = sanitizeRemoteHtml(String(item.value ?? "").slice(0, 2048));
    fields.push({ name, value: htmlToPlainText(valueHtml), value_html: valueHtml, verified_at: null });
  }
  return fields;
}

/** An actor names at most this many other accounts of its own (alsoKnownAs) that are kept. */
const MAX_ALIASES = 32;

/**
 * The account a remote actor says it moved to (`movedTo`), when that account lists the actor among
 * its own (`alsoKnownAs`), as a Move needs it to: anyone can write any `movedTo`. The target is read
 * without following its own `movedTo`, so that a chain of moves costs one fetch. Undefined when the
 * target cannot be read now: what is stored stays.
 */
async function movedToOf(
  rt: Runtime,
  ctx: Context<Runtime> | undefined,
  uri: string,
  actor: Actor,
): Promise<string | null | undefined> {
  const successor = actor.successorId;
  if (!successor || successor.href === uri) return null;
  const id = ctx
    ? await accountByUri(rt, ctx, successor.href, { followMove: false })
    : ((await rt.db.selectFrom("accounts").select("id").where("uri", "=", successor.href).executeTakeFirst())?.id ??
      null);
  if (!id) return undefined;
  const target = await rt.db
    .selectFrom("accounts")
    .select(["also_known_as", "suspended_at"])
    .where("id", "=", id)
    .executeTakeFirst();
  return target && target.suspended_at === null && target.also_known_as.includes(uri) ? id : null;
}

/**
 * Stores (or updates) the account of a remote actor; returns its id. With `ctx`, the account it
 * moved to is read (when new) and kept as `moved_to_account_id`; without, only when stored already.
 */
export async function storeActor(
  rt: Runtime,
  actor: Actor,
  ctx?: Context<Runtime>,
  o: { followMove?: boolean } = {},
): Promise<string | null> {
  if (!actor.id || !actor.preferredUsername) return null;
  const uri = actor.id.href;
  const domain = actor.id.host.toLowerCase();
  if (domain === rt.config.localDomain) return null;
  const username = String(actor.preferredUsername).slice(0, 2048);
  const summary = actor.summary ? sanitizeRemoteHtml(String(actor.summary).slice(0, 20_000)) : "";
  const columns = {
    display_name: String(actor.name ?? "").slice(0, 2048),
    note: htmlToPlainText(summary),
    note_html: summary,
    fields: JSON.stringify(await fieldsOf(actor)),
    avatar_remote_url: await imageUrl(actor.getIcon()),
    header_remote_url: await imageUrl(actor.getImage()),
    actor_type: actorType(actor),
    locked: actor.manuallyApprovesFollowers ?? false,
    discoverable: actor.discoverable ?? null,
    indexable: actor.indexable ?? false,
    url: actor.url instanceof URL ? actor.url.href : (actor.url?.href?.href ?? uri),
    inbox_url: actor.inboxId?.href ?? null,
    shared_inbox_url: actor.endpoints?.sharedInbox?.href ?? null,
    outbox_url: actor.outboxId?.href ?? null,
    followers_url: actor.followersId?.href ?? null,
    following_url: actor.followingId?.href ?? null,
    featured_url: actor.featuredId?.href ?? null,
    also_known_as: JSON.stringify(actor.aliasIds.slice(0, MAX_ALIASES).map((u) => u.href)),
    fetched_at: new Date(),
  };
  await keepEmojisOf(rt, domain, actor);
  const existing = await rt.db
    .selectFrom("accounts")
    .select(["id", "avatar_remote_url", "avatar_file", "header_remote_url", "header_file"])
    .where("uri", "=", uri)
    .executeTakeFirst();
  if (existing) {
    const images = profileImagesAfter(existing, columns);
    await rt.db
      .updateTable("accounts")
      .set({ ...columns, ...images.columns, updated_at: new Date() })
      .where("id", "=", existing.id)
      .execute();
    await removeProfileImageFiles(rt, images.replaced);
    if (images.fetch) await rt.queue.enqueue("media.cache", { accountId: existing.id }, { unique: true });
    if (o.followMove !== false) await keepMovedTo(rt, existing.id, await movedToOf(rt, ctx, uri, actor));
    await publishEvent(rt, "account.changed", { id: existing.id });
    return existing.id;
  }
  const row = accountRow({ username, domain, uri, ...columns });
  try {
    const id = await rt.db.transaction().execute(async (trx) => {
      const id = await insertAccount(trx, row);
      // Seen for the first time: its pinned posts are read by a job, its images copied by another.
      if (columns.featured_url) await rt.queue.enqueue("federation.featured", { accountId: id }, {}, trx);
      if (columns.avatar_remote_url || columns.header_remote_url) {
        await rt.queue.enqueue("media.cache", { accountId: id }, {}, trx);
      }
      return id;
    });
    if (o.followMove !== false) await keepMovedTo(rt, id, await movedToOf(rt, ctx, uri, actor));
    return id;
  } catch (error) {
    // Stored by another job meanwhile (uri or user@domain taken): that row is the account.
    const again = await rt.db
      .selectFrom("accounts")
      .select("id")
      .where((eb) => eb.or([eb("uri", "=", uri), eb("acct_key", "=", row.acct_key)]))
      .executeTakeFirst();
    if (again) return again.id;
    throw error;
  }
}

/** Sets (or clears) the account a remote account moved to; the followers move on a Move only. */
async function keepMovedTo(rt: Runtime, id: string, movedTo: string | null | undefined): Promise<void> {
  if (movedTo === undefined) return;
  await rt.db
    .updateTable("accounts")
    .set({ moved_to_account_id: movedTo })
    .where("id", "=", id)
    .where((eb) =>
      movedTo === null
        ? eb("moved_to_account_id", "is not", null)
        : eb.or([eb("moved_to_account_id", "is", null), eb("moved_to_account_id", "!=", movedTo)]),
    )
    .execute();
}

/** Fetches signed by the instance actor, for servers that answer signed fetches only (secure mode). */
export function signedLoader(ctx: Context<Runtime>) {
  return ctx.getDocumentLoader({ identifier: INSTANCE_ACTOR });
}

/** Whether a stored account needs no reading again: a local one, or a remote one read lately. */
export function isFresh(row: { domain: string | null; fetched_at: Date | null }): boolean {
  return row.domain === null || (row.fetched_at !== null && Date.now() - row.fetched_at.getTime() < STALE_MS);
}

/**
 * The account of an actor URL: stored already (and fresh), or read now; `refresh` reads a remote
 * one again however fresh, and `followMove: false` leaves the account it moved to unread.
 */
export async function accountByUri(
  rt: Runtime,
  ctx: Context<Runtime>,
  uri: string,
  o: { refresh?: boolean; followMove?: boolean } = {},
): Promise<string | null> {
  const row = await rt.db
    .selectFrom("accounts")
    .select(["id", "domain", "fetched_at"])
    .where("uri", "=", uri)
    .executeTakeFirst();
  if (row && (row.domain === null || (!o.refresh && isFresh(row)))) return row.id;
  if (await refused(rt, uri)) return row?.id ?? null;
  const actor = await ctx.lookupObject(uri, { documentLoader: await signedLoader(ctx) }).catch(() => null);
  if (!actor || !isActor(actor)) return row?.id ?? null;
  return (await storeActor(rt, actor, ctx, o)) ?? row?.id ?? null;
}

/** The account `user@domain` names, found through WebFinger when it is not stored yet. */
export async function resolveAcct(rt: Runtime, ctx: Context<Runtime>, username: string, domain: string) {
  const host = domain.toLowerCase();
  const known = await rt.db
    .selectFrom("accounts")
    .select(["id", "uri"])
    .where("acct_key", "=", `${username.toLowerCase()}@${host === rt.config.localDomain ? "" : host}`)
    .executeTakeFirst();
  if (known) return known.id;
  if (host === rt.config.localDomain || (await peerPolicy(rt, host)).refused) return null;
  const url = await webFingerActorUrl(rt, username, host).catch(() => null);
  return url ? accountByUri(rt, ctx, url) : null;
}
