// POST, GET, PUT and DELETE /api/v1/push/subscription: the Web Push subscription of the calling token.
import { z } from "zod";
import type { PushPolicy } from "../../db/schema.ts";
import { unprocessable } from "../../domain/errors.ts";
import { type Ctx, params, router } from "../../http/hono.ts";
import { parse, zBool, zFlag, zString, zText } from "../../http/validate.ts";
import { renderPushSubscription } from "../../serializers/push_subscription.ts";
import {
  ALERT_TYPES,
  type Alerts,
  getSubscription,
  POLICIES,
  subscribe,
  unsubscribe,
  updateSubscription,
} from "../../services/push/subscriptions.ts";
import { vapidKeys } from "../../services/push/vapid.ts";
import { currentUser, requireUser, tokenOf } from "../auth.ts";

export const push = router();

const KEY_MAX = 256;
const ENDPOINT_MAX = 2048;

const dataSchema = z
  .object({
    alerts: z.object(Object.fromEntries(ALERT_TYPES.map((t) => [t, zBool()]))).optional(),
    policy: zText(),
  })
  .optional();

const createSchema = z.object({
  subscription: z.object({
    endpoint: zString(ENDPOINT_MAX).pipe(z.string()),
    keys: z.object({ p256dh: zString(KEY_MAX).pipe(z.string()), auth: zString(KEY_MAX).pipe(z.string()) }),
    standard: zFlag(),
  }),
  data: dataSchema,
});

// Mastodon documents `policy` beside `data` for updates but reads it inside `data`: both are taken.
const updateSchema = z.object({ data: dataSchema, policy: zText() });

function alertsOf(given: Record<string, boolean | undefined> | undefined): Alerts {
  return Object.fromEntries(Object.entries(given ?? {}).filter(([, v]) => v !== undefined)) as Alerts;
}

function policyOf(given: string | undefined): PushPolicy | undefined {
  if (given === undefined) return undefined;
  if (!(POLICIES as readonly string[]).includes(given)) {
    throw unprocessable("Validation failed: Policy is not included in the list");
  }
  return given as PushPolicy;
}

const serverKey = async (c: Ctx) => (await vapidKeys(c.get("rt"))).publicKey;

push.post("/api/v1/push/subscription", requireUser("push"), async (c) => {
  const p = parse(createSchema, await params(c));
  const created = await subscribe(
    c.get("rt"),
    { tokenId: c.get("auth")!.tokenId, token: tokenOf(c)!, accountId: currentUser(c).accountId },
    {
      endpoint: p.subscription.endpoint,
      p256dh: p.subscription.keys.p256dh,
      auth: p.subscription.keys.auth,
      standard: p.subscription.standard,
      alerts: alertsOf(p.data?.alerts),
      policy: policyOf(p.data?.policy),
    },
  );
  return c.json(renderPushSubscription(created, await serverKey(c)));
});

push.get("/api/v1/push/subscription", requireUser("push"), async (c) =>
  c.json(renderPushSubscription(await getSubscription(c.get("rt"), c.get("auth")!.tokenId), await serverKey(c))),
);

push.put("/api/v1/push/subscription", requireUser("push"), async (c) => {
  const p = parse(updateSchema, await params(c));
  const updated = await updateSubscription(c.get("rt"), c.get("auth")!.tokenId, {
    alerts: alertsOf(p.data?.alerts),
    policy: policyOf(p.data?.policy ?? p.policy),
  });
  return c.json(renderPushSubscription(updated, await serverKey(c)));
});

push.delete("/api/v1/push/subscription", requireUser("push"), async (c) => {
  await unsubscribe(c.get("rt"), c.get("auth")!.tokenId);
  return c.json({});
});
