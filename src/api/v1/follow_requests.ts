// Follow requests awaiting the caller's answer.

import { params, router } from "../../http/hono.ts";
import { renderRelationship } from "../../serializers/relationship.ts";
import {
  authorizeFollowRequest,
  listFollowRequests,
  rejectFollowRequest,
} from "../../services/relationships/follows.ts";
import { loadRelationshipView } from "../../services/relationships/views.ts";
import { ACCOUNT_PAGE, accountPage } from "../account_pages.ts";
import { currentUser, requireUser } from "../auth.ts";
import { pageParams } from "../pagination.ts";

export const followRequests = router();

followRequests.get("/api/v1/follow_requests", requireUser("read:follows"), async (c) => {
  const page = pageParams(await params(c), ACCOUNT_PAGE);
  return accountPage(c, await listFollowRequests(c.get("rt"), currentUser(c).accountId, page));
});

followRequests.post("/api/v1/follow_requests/:account_id/authorize", requireUser("write:follows"), async (c) => {
  const me = currentUser(c).accountId;
  const requester = c.req.param("account_id");
  await authorizeFollowRequest(c.get("rt"), me, requester);
  return c.json(renderRelationship(await loadRelationshipView(c.get("rt"), me, requester)));
});

followRequests.post("/api/v1/follow_requests/:account_id/reject", requireUser("write:follows"), async (c) => {
  const me = currentUser(c).accountId;
  const requester = c.req.param("account_id");
  await rejectFollowRequest(c.get("rt"), me, requester);
  return c.json(renderRelationship(await loadRelationshipView(c.get("rt"), me, requester)));
});
