import { router } from "../../http/hono.ts";
import { pathId } from "../../http/validate.ts";
import { renderAnnouncements } from "../../serializers/announcement.ts";
import {
  addReaction,
  announcementsFor,
  dismissAnnouncement,
  removeReaction,
} from "../../services/announcements/announcements.ts";
import { currentUser, requireUser } from "../auth.ts";

export const announcements = router();

announcements.get("/api/v1/announcements", requireUser(), async (c) => {
  const views = await announcementsFor(c.get("rt"), currentUser(c).accountId);
  return c.json(renderAnnouncements(c.get("rt").config, views));
});

announcements.post("/api/v1/announcements/:id/dismiss", requireUser("write:accounts"), async (c) => {
  await dismissAnnouncement(c.get("rt"), currentUser(c).accountId, pathId(c.req.param("id")));
  return c.json({});
});

announcements.put("/api/v1/announcements/:id/reactions/:name", requireUser("write:favourites"), async (c) => {
  const name = c.req.param("name");
  await addReaction(c.get("rt"), currentUser(c).accountId, pathId(c.req.param("id")), name);
  return c.json({});
});

announcements.delete("/api/v1/announcements/:id/reactions/:name", requireUser("write:favourites"), async (c) => {
  const name = c.req.param("name");
  await removeReaction(c.get("rt"), currentUser(c).accountId, pathId(c.req.param("id")), name);
  return c.json({});
});
