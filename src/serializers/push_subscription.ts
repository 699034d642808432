// The WebPushSubscription entity. Every alert type is listed, false unless the app turned it on.
import { ALERT_TYPES, type PushSubscription } from "../services/push/subscriptions.ts";

export function renderPushSubscription(s: PushSubscription, serverKey: string) {
  return {
    id: s.id,
    endpoint: s.endpoint,
    standard: s.standard,
    alerts: Object.fromEntries(ALERT_TYPES.map((type) => [type, s.alerts[type] === true])),
    policy: s.policy,
    server_key: serverKey,
  };
}
