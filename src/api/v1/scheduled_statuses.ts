import { z } from "zod";
import { unprocessable } from "../../domain/errors.ts";
import { WORD_MAX } from "../../domain/lengths.ts";
import { params, router } from "../../http/hono.ts";
import { parse, pathId, zString } from "../../http/validate.ts";
import { renderScheduled } from "../../serializers/scheduled_status.ts";
import { cancelScheduled, listScheduled, ownScheduled, reschedule } from "../../services/statuses/scheduled.ts";
import { currentUser, requireUser } from "../auth.ts";
import { pageParams, setLinkHeader } from "../pagination.ts";

export const scheduledStatuses = router();

scheduledStatuses.get("/api/v1/scheduled_statuses", requireUser("read:statuses"), async (c) => {
  const result = await listScheduled(c.var.rt, currentUser(c).accountId, pageParams(await params(c)));
  setLinkHeader(c, c.var.rt.config.origin, result);
  return c.json(result.items.map(renderScheduled));
});

scheduledStatuses.get("/api/v1/scheduled_statuses/:id", requireUser("read:statuses"), async (c) =>
  c.json(renderScheduled(await ownScheduled(c.var.rt, currentUser(c).accountId, pathId(c.req.param("id"))))),
);

scheduledStatuses.put("/api/v1/scheduled_statuses/:id", requireUser("write:statuses"), async (c) => {
  const p = parse(z.object({ scheduled_at: zString(WORD_MAX) }), await params(c));
  const id = pathId(c.req.param("id"));
  const me = currentUser(c).accountId;
  if (!p.scheduled_at) return c.json(renderScheduled(await ownScheduled(c.var.rt, me, id)));
  const at = new Date(p.scheduled_at);
  if (Number.isNaN(at.getTime())) throw unprocessable("Validation failed: Scheduled at is invalid");
  return c.json(renderScheduled(await reschedule(c.var.rt, me, id, at)));
});

scheduledStatuses.delete("/api/v1/scheduled_statuses/:id", requireUser("write:statuses"), async (c) => {
  await cancelScheduled(c.var.rt, currentUser(c).accountId, pathId(c.req.param("id")));
  return c.json({});
});
