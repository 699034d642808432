import { params, router } from "../../http/hono.ts";
import { pathId } from "../../http/validate.ts";
import { renderConversations } from "../../serializers/conversation.ts";
import {
  listConversations,
  loadConversationViews,
  markRead,
  removeConversation,
} from "../../services/statuses/conversations.ts";
import { currentUser, requireUser } from "../auth.ts";
import { pageParams, setLinkHeader } from "../pagination.ts";

export const conversations = router();

conversations.get("/api/v1/conversations", requireUser("read:statuses"), async (c) => {
  const viewer = currentUser(c).accountId;
  const result = await listConversations(c.get("rt"), viewer, pageParams(await params(c)));
  setLinkHeader(c, c.get("rt").config.origin, result);
  const views = await loadConversationViews(c.get("rt"), viewer, result.items);
  return c.json(renderConversations(c.get("rt"), result.items, views));
});

conversations.post("/api/v1/conversations/:id/read", requireUser("write:conversations"), async (c) => {
  const viewer = currentUser(c).accountId;
  const row = await markRead(c.get("rt"), viewer, pathId(c.req.param("id")));
  const [entity] = renderConversations(c.get("rt"), [row], await loadConversationViews(c.get("rt"), viewer, [row]));
  return c.json(entity);
});

conversations.delete("/api/v1/conversations/:id", requireUser("write:conversations"), async (c) => {
  await removeConversation(c.get("rt"), currentUser(c).accountId, pathId(c.req.param("id")));
  return c.json({});
});
