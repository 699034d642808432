import { z } from "zod";
import { params, router } from "../../http/hono.ts";
import { parse, pathId, zStrings } from "../../http/validate.ts";
import { renderPoll } from "../../serializers/poll.ts";
import { loadPollView, vote } from "../../services/statuses/polls.ts";
import { currentUser, requireUser, tokenIfGiven, viewerId } from "../auth.ts";

export const polls = router();

polls.get("/api/v1/polls/:id", tokenIfGiven("read:statuses"), async (c) => {
  const viewer = viewerId(c);
  return c.json(renderPoll(await loadPollView(c.get("rt"), viewer, pathId(c.req.param("id")))));
});

polls.post("/api/v1/polls/:id/votes", requireUser("write:statuses"), async (c) => {
  const p = parse(z.object({ choices: zStrings() }), await params(c));
  const viewer = currentUser(c).accountId;
  const id = pathId(c.req.param("id"));
  await vote(c.get("rt"), viewer, id, (p.choices ?? []).map(Number));
  return c.json(renderPoll(await loadPollView(c.get("rt"), viewer, id)));
});
