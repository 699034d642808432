import { z } from "zod";
import { LIST_TITLE_MAX, WORD_MAX } from "../../domain/lengths.ts";
import { params, router } from "../../http/hono.ts";
import { parse, pathId, zBool, zRefs, zString } from "../../http/validate.ts";
import { renderList } from "../../serializers/list.ts";
import { viewableAccount } from "../../services/accounts/accounts.ts";
import * as lists from "../../services/feeds/lists.ts";
import { accountEntities } from "../account_pages.ts";
import { currentUser, requireUser } from "../auth.ts";
import { pageParams, setLinkHeader } from "../pagination.ts";

export const listsApi = router();

const READ = requireUser("read:lists");
const WRITE = requireUser("write:lists");

const listSchema = z.object({
  title: zString(LIST_TITLE_MAX),
  replies_policy: zString(WORD_MAX),
  exclusive: zBool(),
});

const changesOf = (p: z.output<typeof listSchema>): lists.ListChanges => ({
  title: p.title,
  repliesPolicy: p.replies_policy,
  exclusive: p.exclusive,
});

// Lists are few (at most 50): they come all at once, without pagination.
listsApi.get("/api/v1/lists", READ, async (c) =>
  c.json((await lists.listsOf(c.get("rt"), currentUser(c).accountId)).map(renderList)),
);

listsApi.post("/api/v1/lists", WRITE, async (c) => {
  const p = parse(listSchema, await params(c));
  return c.json(renderList(await lists.createList(c.get("rt"), currentUser(c).accountId, changesOf(p))));
});

listsApi.get("/api/v1/lists/:id", READ, async (c) =>
  c.json(renderList(await lists.ownList(c.get("rt").db, currentUser(c).accountId, pathId(c.req.param("id"))))),
);

listsApi.put("/api/v1/lists/:id", WRITE, async (c) => {
  const p = parse(listSchema, await params(c));
  const id = pathId(c.req.param("id"));
  return c.json(renderList(await lists.updateList(c.get("rt"), currentUser(c).accountId, id, changesOf(p))));
});

listsApi.delete("/api/v1/lists/:id", WRITE, async (c) => {
  await lists.deleteList(c.get("rt"), currentUser(c).accountId, pathId(c.req.param("id")));
  return c.json({});
});

listsApi.get("/api/v1/lists/:id/accounts", READ, async (c) => {
  const page = pageParams(await params(c), { default: 40, max: 80, zeroMeansAll: true });
  const result = await lists.listMembers(c.get("rt"), currentUser(c).accountId, pathId(c.req.param("id")), page);
  setLinkHeader(c, c.get("rt").config.origin, result);
  return c.json(
    await accountEntities(
      c.get("rt"),
      result.items.map((m) => m.account_id),
    ),
  );
});

const membersSchema = z.object({ account_ids: zRefs() });

listsApi.post("/api/v1/lists/:id/accounts", WRITE, async (c) => {
  const p = parse(membersSchema, await params(c));
  await lists.addMembers(
    c.get("rt"),
    currentUser(c).accountId,
    pathId(c.req.param("id")),
    (p.account_ids ?? []).map(pathId),
  );
  return c.json({});
});

listsApi.delete("/api/v1/lists/:id/accounts", WRITE, async (c) => {
  const p = parse(membersSchema, await params(c));
  await lists.removeMembers(
    c.get("rt"),
    currentUser(c).accountId,
    pathId(c.req.param("id")),
    (p.account_ids ?? []).map(pathId),
  );
  return c.json({});
});

listsApi.get("/api/v1/accounts/:id/lists", READ, async (c) => {
  const id = pathId(c.req.param("id"));
  await viewableAccount(c.get("rt"), id);
  return c.json((await lists.listsContaining(c.get("rt"), currentUser(c).accountId, id)).map(renderList));
});
