import { z } from "zod";
import { WORD_MAX } from "../../domain/lengths.ts";
import { params, router } from "../../http/hono.ts";
import { parse, zId, zStrings } from "../../http/validate.ts";
import { renderMarkers } from "../../serializers/marker.ts";
import { getMarkers, setMarkers, TIMELINES, type Timeline } from "../../services/feeds/markers.ts";
import { currentUser, requireUser } from "../auth.ts";

export const markers = router();

markers.get("/api/v1/markers", requireUser("read:statuses"), async (c) => {
  const p = parse(z.object({ timeline: zStrings(WORD_MAX) }), await params(c));
  // Unknown timeline names are ignored, as Mastodon does.
  const timelines = (p.timeline ?? []).filter((t): t is Timeline => (TIMELINES as readonly string[]).includes(t));
  return c.json(renderMarkers(await getMarkers(c.get("rt"), currentUser(c).accountId, timelines)));
});

const position = z.object({ last_read_id: zId() }).optional();

markers.post("/api/v1/markers", requireUser("write:statuses"), async (c) => {
  const p = parse(z.object({ home: position, notifications: position }), await params(c));
  const positions: Partial<Record<Timeline, string>> = {};
  if (p.home) positions.home = p.home.last_read_id;
  if (p.notifications) positions.notifications = p.notifications.last_read_id;
  return c.json(renderMarkers(await setMarkers(c.get("rt"), currentUser(c).accountId, positions)));
});
