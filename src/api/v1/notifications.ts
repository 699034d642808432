import { notFound } from "../../domain/errors.ts";
import { params, router, sendJson } from "../../http/hono.ts";
import { pathId } from "../../http/validate.ts";
import { notificationsJson, renderNotifications } from "../../serializers/notification.ts";
import {
  clearNotifications,
  dismissNotification,
  getNotification,
  listNotifications,
  unreadCount,
} from "../../services/notifications/read.ts";
import { loadNotificationViews } from "../../services/notifications/views.ts";
import { currentUser, requireUser } from "../auth.ts";
import { countLimit, notificationQuery } from "../notification_query.ts";
import { pageParams, setLinkHeader } from "../pagination.ts";

export const notifications = router();

const READ = requireUser("read:notifications");
const WRITE = requireUser("write:notifications");
export const NOTIFICATION_PAGE = { default: 40, max: 80 };

notifications.get("/api/v1/notifications", READ, async (c) => {
  const all = await params(c);
  const viewer = currentUser(c).accountId;
  const result = await listNotifications(
    c.get("rt"),
    viewer,
    notificationQuery(all),
    pageParams(all, NOTIFICATION_PAGE),
  );
  setLinkHeader(c, c.get("rt").config.origin, result);
  const views = await loadNotificationViews(c.get("rt"), viewer, result.items);
  return sendJson(c, notificationsJson(c.get("rt"), result.items, views));
});

notifications.get("/api/v1/notifications/unread_count", READ, async (c) => {
  const all = await params(c);
  const count = await unreadCount(c.get("rt"), currentUser(c).accountId, notificationQuery(all), countLimit(all));
  return c.json({ count });
});

notifications.post("/api/v1/notifications/clear", WRITE, async (c) => {
  await clearNotifications(c.get("rt"), currentUser(c).accountId);
  return c.json({});
});

notifications.get("/api/v1/notifications/:id", READ, async (c) => {
  const viewer = currentUser(c).accountId;
  const row = await getNotification(c.get("rt"), viewer, pathId(c.req.param("id")));
  const [entity] = renderNotifications(c.get("rt"), [row], await loadNotificationViews(c.get("rt"), viewer, [row]));
  if (!entity) throw notFound();
  return c.json(entity);
});

notifications.post("/api/v1/notifications/:id/dismiss", WRITE, async (c) => {
  await dismissNotification(c.get("rt"), currentUser(c).accountId, pathId(c.req.param("id")));
  return c.json({});
});
