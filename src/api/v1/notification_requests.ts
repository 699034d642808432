// Notification requests: what the notification policy filtered, per sender. The policy itself is
// at /api/v2/notifications/policy.

import { z } from "zod";
import { params, router } from "../../http/hono.ts";
import { parse, pathId, zIds } from "../../http/validate.ts";
import { renderNotificationRequests } from "../../serializers/notification.ts";
import { acceptRequests, dismissRequests, getRequest, listRequests } from "../../services/notifications/requests.ts";
import { loadRequestViews } from "../../services/notifications/views.ts";
import { currentUser, requireUser } from "../auth.ts";
import { pageParams, setLinkHeader } from "../pagination.ts";
import { NOTIFICATION_PAGE } from "./notifications.ts";

export const notificationRequests = router();

const READ = requireUser("read:notifications");
const WRITE = requireUser("write:notifications");

notificationRequests.get("/api/v1/notifications/requests", READ, async (c) => {
  const viewer = currentUser(c).accountId;
  const result = await listRequests(c.get("rt"), viewer, pageParams(await params(c), NOTIFICATION_PAGE));
  setLinkHeader(c, c.get("rt").config.origin, result);
  const views = await loadRequestViews(c.get("rt"), viewer, result.items);
  return c.json(renderNotificationRequests(c.get("rt"), result.items, views));
});

// Requests are merged as notifications arrive, never in the background: always done.
notificationRequests.get("/api/v1/notifications/requests/merged", READ, (c) => c.json({ merged: true }));

const bulk = z.object({ id: zIds() });

notificationRequests.post("/api/v1/notifications/requests/accept", WRITE, async (c) => {
  const { id } = parse(bulk, await params(c));
  await acceptRequests(c.get("rt"), currentUser(c).accountId, id ?? []);
  return c.json({});
});

notificationRequests.post("/api/v1/notifications/requests/dismiss", WRITE, async (c) => {
  const { id } = parse(bulk, await params(c));
  await dismissRequests(c.get("rt"), currentUser(c).accountId, id ?? []);
  return c.json({});
});

notificationRequests.get("/api/v1/notifications/requests/:id", READ, async (c) => {
  const viewer = currentUser(c).accountId;
  const row = await getRequest(c.get("rt"), viewer, pathId(c.req.param("id")));
  const [entity] = renderNotificationRequests(c.get("rt"), [row], await loadRequestViews(c.get("rt"), viewer, [row]));
  return c.json(entity);
});

notificationRequests.post("/api/v1/notifications/requests/:id/accept", WRITE, async (c) => {
  const viewer = currentUser(c).accountId;
  const row = await getRequest(c.get("rt"), viewer, pathId(c.req.param("id")));
  await acceptRequests(c.get("rt"), viewer, [row.id]);
  return c.json({});
});

notificationRequests.post("/api/v1/notifications/requests/:id/dismiss", WRITE, async (c) => {
  const viewer = currentUser(c).accountId;
  const row = await getRequest(c.get("rt"), viewer, pathId(c.req.param("id")));
  await dismissRequests(c.get("rt"), viewer, [row.id]);
  return c.json({});
});
