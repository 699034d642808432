// Push subscriptions, as Mastodon keeps them: one per access token (subscribing again replaces it),
// with the alerts (notification types) and the policy (whose notifications) the app wants pushed.
// Keys are checked when subscribing, so that a bad key is the app's 422 now, not a failed push later.
import { createECDH } from "node:crypto";
import type { Selectable } from "kysely";
import { NOTIFICATION_TYPES, type PushPolicy, type PushSubscriptionsTable } from "../../db/schema.ts";
import { notFound, unprocessable } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import { sealSecret } from "../../domain/secrets.ts";
import { isPublicAddress } from "../../net/addresses.ts";
import type { Runtime } from "../../runtime.ts";

export type PushSubscription = Selectable<PushSubscriptionsTable>;

/**
 * Every notification type of Mastodon 4.7 an app may ask to be pushed: quotes and collections too,
 * though Rookery makes none of those yet.
 */
export const ALERT_TYPES = [
  ...NOTIFICATION_TYPES,
  "quote",
  "quoted_update",
  "added_to_collection",
  "collection_update",
] as const;
export type AlertType = (typeof ALERT_TYPES)[number];
export type Alerts = Partial<Record<AlertType, boolean>>;

export const POLICIES: readonly PushPolicy[] = ["all", "followed", "follower", "none"];

/** The purpose a subscription's access token is sealed for. */
export const TOKEN_SEAL = "push subscription access token";

export interface NewSubscription {
  endpoint: string;
  p256dh: string;
  auth: string;
  standard: boolean;
  alerts: Alerts;
  policy: PushPolicy | undefined;
}

export interface Subscriber {
  tokenId: string;
  /** The access token itself, handed back to the app in every push. */
  token: string;
  accountId: string;
}

/** Subscribes the token, replacing the subscription it had. */
export async function subscribe(rt: Runtime, who: Subscriber, input: NewSubscription): Promise<PushSubscription> {
  const endpoint = checkEndpoint(rt, input.endpoint);
  const p256dh = checkPublicKey(input.p256dh);
  const auth = checkAuthSecret(input.auth);
  const now = new Date();
  const row = {
    id: newId(),
    access_token_id: who.tokenId,
    account_id: who.accountId,
    endpoint,
    key_p256dh: p256dh,
    key_auth: auth,
    standard: input.standard,
    alerts: JSON.stringify(input.alerts),
    policy: input.policy ?? "all",
    sealed_token: sealSecret(who.token, rt.config.secretKeyBase, TOKEN_SEAL),
    created_at: now,
    updated_at: now,
  };
  return rt.db.transaction().execute(async (trx) => {
    await trx.deleteFrom("push_subscriptions").where("access_token_id", "=", who.tokenId).execute();
    return trx.insertInto("push_subscriptions").values(row).returningAll().executeTakeFirstOrThrow();
  });
}

/** The token's subscription; a 404 when it has none. */
export async function getSubscription(rt: Runtime, tokenId: string): Promise<PushSubscription> {
  const row = await rt.db
    .selectFrom("push_subscriptions")
    .selectAll()
    .where("access_token_id", "=", tokenId)
    .executeTakeFirst();
  if (!row) throw notFound();
  return row;
}

/**
 * Replaces the alerts and the policy, as Mastodon replaces a subscription's data on update: alerts
 * not given are off, and the policy is `all` unless given.
 */
export async function updateSubscription(
  rt: Runtime,
  tokenId: string,
  change: { alerts: Alerts; policy: PushPolicy | undefined },
): Promise<PushSubscription> {
  const row = await rt.db
    .updateTable("push_subscriptions")
    .set({ alerts: JSON.stringify(change.alerts), policy: change.policy ?? "all", updated_at: new Date() })
    .where("access_token_id", "=", tokenId)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw notFound();
  return row;
}

export async function unsubscribe(rt: Runtime, tokenId: string): Promise<void> {
  await rt.db.deleteFrom("push_subscriptions").where("access_token_id", "=", tokenId).execute();
}

function checkEndpoint(rt: Runtime, endpoint: string): string {
  let url: URL;
  try {
    url = new URL(endpoint.trim());
  } catch {
    throw unprocessable("Validation failed: Endpoint is not a valid URL");
  }
  const schemes = rt.config.allowPrivateAddresses ? ["https:", "http:"] : ["https:"];
  if (!schemes.includes(url.protocol) || !url.hostname) {
    throw unprocessable("Validation failed: Endpoint must be an https URL");
  }
  // A name is checked when it is resolved, on every push; an address can be refused right away.
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (!rt.config.allowPrivateAddresses && /^[\d.]+$|:/.test(host) && !isPublicAddress(host)) {
    throw unprocessable("Validation failed: Endpoint must be a public address");
  }
  return url.href;
}

/** Standard or URL-safe base64, padded or not, as the bytes it encodes; null when it is not base64. */
function base64Bytes(value: string): Buffer | null {
  const text = value.trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) return null;
  return Buffer.from(text.replace(/-/g, "+").replace(/_/g, "/"), "base64");
}

/** p256dh: an uncompressed point on P-256 (65 bytes), stored as unpadded base64url. */
function checkPublicKey(value: string): string {
  const key = base64Bytes(value) ?? Buffer.alloc(0);
  const invalid = () => unprocessable("Validation failed: Keys p256dh is not a valid P-256 public key");
  if (key.length !== 65 || key[0] !== 4) throw invalid();
  try {
    // Deriving a secret with it fails unless the point lies on the curve.
    const probe = createECDH("prime256v1");
    probe.generateKeys();
    probe.computeSecret(key);
  } catch {
    throw invalid();
  }
  return key.toString("base64url");
}

/** auth: the 16 random bytes RFC 8291 names the authentication secret. */
function checkAuthSecret(value: string): string {
  const secret = base64Bytes(value) ?? Buffer.alloc(0);
  if (secret.length !== 16) {
    throw unprocessable("Validation failed: Keys auth must be a 16-byte secret in base64");
  }
  return secret.toString("base64url");
}
