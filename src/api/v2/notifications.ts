// Grouped notifications (Mastodon 4.3+) and the notification policy.
import { z } from "zod";
import { notFound } from "../../domain/errors.ts";
import { type Ctx, params, router, sendJson } from "../../http/hono.ts";
import { parse } from "../../http/validate.ts";
import { groupedNotificationsJson } from "../../serializers/notification.ts";
import {
  dismissGroup,
  getGroup,
  groupAccountIds,
  listGroups,
  unreadGroupCount,
} from "../../services/notifications/groups.ts";
import { getPolicy, POLICY_VALUES, updatePolicy } from "../../services/notifications/policy.ts";
import { requestsSummary } from "../../services/notifications/requests.ts";
import { loadGroupViews } from "../../services/notifications/views.ts";
import { accountEntities } from "../account_pages.ts";
import { currentUser, requireUser } from "../auth.ts";
import { countLimit, notificationQuery } from "../notification_query.ts";
import { pageParams, setLinkHeader } from "../pagination.ts";
import { NOTIFICATION_PAGE } from "../v1/notifications.ts";

export const notificationsV2 = router();

const READ = requireUser("read:notifications");
const WRITE = requireUser("write:notifications");

async function renderPolicy(c: Ctx) {
  const viewer = currentUser(c).accountId;
  const [policy, summary] = await Promise.all([
    getPolicy(c.get("rt").db, viewer),
    requestsSummary(c.get("rt"), viewer),
  ]);
  return { ...policy, summary };
}

notificationsV2.get("/api/v2/notifications/policy", READ, async (c) => c.json(await renderPolicy(c)));

const value = z.enum(POLICY_VALUES as ["accept", "filter", "drop"]).optional();
const policySchema = z.object({
  for_not_following: value,
  for_not_followers: value,
  for_new_accounts: value,
  for_private_mentions: value,
  for_limited_accounts: value,
});

// Rails routes `resource :policy` updates by PATCH and by PUT (masto.js sends PUT).
notificationsV2.on(["PATCH", "PUT"], "/api/v2/notifications/policy", WRITE, async (c) => {
  const p = parse(policySchema, await params(c));
  const changes = Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined));
  await updatePolicy(c.get("rt"), currentUser(c).accountId, changes);
  return c.json(await renderPolicy(c));
});

notificationsV2.get("/api/v2/notifications", READ, async (c) => {
  const all = await params(c);
  const viewer = currentUser(c).accountId;
  const { expand_accounts } = parse(z.object({ expand_accounts: z.string().optional() }), all);
  const page = await listGroups(c.get("rt"), viewer, notificationQuery(all), pageParams(all, NOTIFICATION_PAGE));
  setLinkHeader(c, c.get("rt").config.origin, page);
  const views = await loadGroupViews(c.get("rt"), viewer, page.groups);
  const partialAvatars = expand_accounts === "partial_avatars";
  return sendJson(c, groupedNotificationsJson(c.get("rt"), page.groups, views, { partialAvatars }));
});

notificationsV2.get("/api/v2/notifications/unread_count", READ, async (c) => {
  const all = await params(c);
  const count = await unreadGroupCount(c.get("rt"), currentUser(c).accountId, notificationQuery(all), countLimit(all));
  return c.json({ count });
});

notificationsV2.get("/api/v2/notifications/:group_key", READ, async (c) => {
  const viewer = currentUser(c).accountId;
  const group = await getGroup(c.get("rt"), viewer, c.req.param("group_key"));
  if (!group) throw notFound();
  return sendJson(
    c,
    groupedNotificationsJson(c.get("rt"), [group], await loadGroupViews(c.get("rt"), viewer, [group])),
  );
});

notificationsV2.get("/api/v2/notifications/:group_key/accounts", READ, async (c) => {
  const viewer = currentUser(c).accountId;
  const { limit } = pageParams(await params(c), NOTIFICATION_PAGE);
  const ids = await groupAccountIds(c.get("rt"), viewer, c.req.param("group_key"), limit);
  if (ids.length === 0) throw notFound();
  return c.json(await accountEntities(c.get("rt"), ids));
});

notificationsV2.post("/api/v2/notifications/:group_key/dismiss", WRITE, async (c) => {
  await dismissGroup(c.get("rt"), currentUser(c).accountId, c.req.param("group_key"));
  return c.json({});
});
