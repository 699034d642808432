// The push job: loads what a notification's pushes need, renders the payload for each subscription,
// and sends them side by side (the service bounds how many go to one push service at once).
import type { Runtime } from "../runtime.ts";
import { renderAccountView } from "../serializers/account.ts";
import { renderWebPushNotification } from "../serializers/web_push_notification.ts";
import { loadAccountViews } from "../services/accounts/views.ts";
import { forgetOldDeliveries, loadPush, sendPush } from "../services/push/delivery.ts";
import type { JobPayloads } from "./queue.ts";

export async function deliverPush(rt: Runtime, job: JobPayloads["push.deliver"]): Promise<void> {
  const work = await loadPush(rt, job);
  if (!work) return;
  const senderView = (await loadAccountViews(rt, [work.notification.fromAccountId])).get(
    work.notification.fromAccountId,
  );
  if (!senderView) return;
  const sender = renderAccountView(rt, senderView);
  await Promise.all(
    work.targets.map((target) =>
      sendPush(
        rt,
        target,
        work.notification.id,
        renderWebPushNotification(work.notification, target, sender),
        job.attempt ?? 1,
      ),
    ),
  );
  await forgetOldDeliveries(rt);
}
