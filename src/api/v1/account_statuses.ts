import { z } from "zod";
import { params, router, sendJson } from "../../http/hono.ts";
import { parse, pathId, zFlag, zText } from "../../http/validate.ts";
import { statusesJson } from "../../serializers/status.ts";
import { viewableAccount } from "../../services/accounts/accounts.ts";
import { accountStatuses, pinnedStatuses } from "../../services/statuses/read.ts";
import { loadStatusViews } from "../../services/statuses/views.ts";
import { tokenIfGiven, viewerId } from "../auth.ts";
import { pageParams, setLinkHeader } from "../pagination.ts";

export const accountStatusesApi = router();

const flag = zFlag();
const schema = z.object({
  exclude_reblogs: flag,
  exclude_replies: flag,
  only_media: flag,
  pinned: flag,
  tagged: zText(),
});

accountStatusesApi.get("/api/v1/accounts/:id/statuses", tokenIfGiven("read:statuses"), async (c) => {
  const id = pathId(c.req.param("id"));
  const rt = c.get("rt");
  const all = await params(c);
  const p = parse(schema, all);
  const viewer = viewerId(c);
  // A suspended account shows no statuses: an empty list, as in Mastodon.
  await viewableAccount(rt, id).catch((error) => {
    if (error.status !== 410) throw error;
  });
  const render = async (ids: string[]) =>
    sendJson(c, statusesJson(rt, await loadStatusViews(rt, viewer, ids, { context: "account" })));
  if (p.pinned) {
    // Pins are few and come all at once: no pagination headers.
    return render(await pinnedStatuses(rt, viewer, id));
  }
  const result = await accountStatuses(
    rt,
    viewer,
    id,
    {
      excludeReblogs: p.exclude_reblogs,
      excludeReplies: p.exclude_replies,
      onlyMedia: p.only_media,
      tagged: p.tagged ?? null,
    },
    pageParams(all),
  );
  setLinkHeader(c, rt.config.origin, result);
  return render(result.items);
});
