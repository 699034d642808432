// POST /api/v1/statuses/:id/{favourite,reblog,bookmark,pin,mute,…} and who favourited or boosted.

import { z } from "zod";
import { WORD_MAX } from "../../domain/lengths.ts";
import { type Ctx, params, router, sendJson } from "../../http/hono.ts";
import { parse, pathId, zText } from "../../http/validate.ts";
import { statusesJson, statusJson } from "../../serializers/status.ts";
import * as act from "../../services/statuses/interactions.ts";
import { loadStatusView, loadStatusViews } from "../../services/statuses/views.ts";
import { accountEntities } from "../account_pages.ts";
import { currentUser, requireUser, tokenIfGiven, viewerId } from "../auth.ts";
import { pageParams, setLinkHeader } from "../pagination.ts";

export const statusActions = router();

type Action = (rt: Ctx["var"]["rt"], viewerId: string, id: string) => Promise<string>;

const simple: [string, string, Action][] = [
  ["favourite", "write:favourites", act.favourite],
  ["unfavourite", "write:favourites", act.unfavourite],
  ["unreblog", "write:statuses", act.unreblog],
  ["bookmark", "write:bookmarks", act.bookmark],
  ["unbookmark", "write:bookmarks", act.unbookmark],
  ["pin", "write:accounts", act.pin],
  ["unpin", "write:accounts", act.unpin],
  ["mute", "write:mutes", (rt, v, id) => act.muteConversation(rt, v, id, true)],
  ["unmute", "write:mutes", (rt, v, id) => act.muteConversation(rt, v, id, false)],
];

for (const [name, scope, action] of simple) {
  statusActions.post(`/api/v1/statuses/:id/${name}`, requireUser(scope), async (c) => {
    const viewer = currentUser(c).accountId;
    const id = await action(c.get("rt"), viewer, pathId(c.req.param("id")));
    return sendJson(c, statusJson(c.get("rt"), await loadStatusView(c.get("rt"), viewer, id)));
  });
}

statusActions.post("/api/v1/statuses/:id/reblog", requireUser("write:statuses"), async (c) => {
  const p = parse(z.object({ visibility: zText(WORD_MAX) }), await params(c));
  const viewer = currentUser(c).accountId;
  const id = await act.reblog(c.get("rt"), viewer, pathId(c.req.param("id")), p.visibility);
  return sendJson(c, statusJson(c.get("rt"), await loadStatusView(c.get("rt"), viewer, id)));
});

for (const [name, kind] of [
  ["favourited_by", "favourites"],
  ["reblogged_by", "reblogs"],
] as const) {
  statusActions.get(`/api/v1/statuses/:id/${name}`, tokenIfGiven("read:statuses"), async (c) => {
    const page = pageParams(await params(c), { default: 40, max: 80 });
    const result = await act.interactedBy(c.get("rt"), viewerId(c), pathId(c.req.param("id")), kind, page);
    setLinkHeader(c, c.get("rt").config.origin, result);
    return c.json(
      await accountEntities(
        c.get("rt"),
        result.items.map((r) => r.account_id),
      ),
    );
  });
}

for (const [path, table, scope] of [
  ["/api/v1/bookmarks", "bookmarks", "read:bookmarks"],
  ["/api/v1/favourites", "favourites", "read:favourites"],
] as const) {
  statusActions.get(path, requireUser(scope), async (c) => {
    const viewer = currentUser(c).accountId;
    const result = await act.savedStatuses(c.get("rt"), viewer, table, pageParams(await params(c)));
    setLinkHeader(c, c.get("rt").config.origin, result);
    return sendJson(c, statusesJson(c.get("rt"), await loadStatusViews(c.get("rt"), viewer, result.items)));
  });
}
