// How the caller stands with other accounts: following, blocking, muting, private notes, and the
// Relationship entity; and the follower and following lists of a profile.

import type { Handler } from "hono";
import { z } from "zod";
import { type AppEnv, params, router } from "../../http/hono.ts";
import type { Params } from "../../http/params.ts";
import { parse, zBool, zIds, zInt, zText } from "../../http/validate.ts";
import type { Runtime } from "../../runtime.ts";
import { renderRelationship } from "../../serializers/relationship.ts";
import { accountByReference } from "../../services/accounts/accounts.ts";
import { setAccountNote } from "../../services/accounts/notes.ts";
import { block, unblock } from "../../services/relationships/blocks.ts";
import {
  familiarFollowers,
  follow,
  listFollows,
  removeFromFollowers,
  unfollow,
} from "../../services/relationships/follows.ts";
import { mute, unmute } from "../../services/relationships/mutes.ts";
import { loadRelationshipView, loadRelationshipViews } from "../../services/relationships/views.ts";
import { ACCOUNT_PAGE, accountEntities, accountEntity, accountPage } from "../account_pages.ts";
import { currentUser, requireUser, tokenIfGiven, viewerId } from "../auth.ts";
import { pageParams } from "../pagination.ts";

export const accountsRelationships = router();

/** Runs `action` by the caller on the account in the path, then answers the Relationship with it. */
const relationshipAction =
  (action: (rt: Runtime, me: string, id: string, p: Params) => Promise<void>): Handler<AppEnv> =>
  async (c) => {
    const me = currentUser(c).accountId;
    const id = c.req.param("id")!;
    await action(c.get("rt"), me, id, await params(c));
    return c.json(renderRelationship(await loadRelationshipView(c.get("rt"), me, id)));
  };

/** `languages[]=…`: absent changes nothing; an empty list (or only blanks) means every language. */
const zLanguages = () =>
  z.preprocess(
    (v) => (v === undefined || v === null ? undefined : (Array.isArray(v) ? v : [v]).filter((x) => x !== "")),
    z
      .array(z.string())
      .transform((codes) => (codes.length === 0 ? null : codes))
      .optional(),
  );

const followSchema = z.object({ reblogs: zBool(), notify: zBool(), languages: zLanguages() });

accountsRelationships.post(
  "/api/v1/accounts/:id/follow",
  requireUser("write:follows"),
  relationshipAction((rt, me, id, raw) => {
    const p = parse(followSchema, raw);
    return follow(rt, me, id, { reblogs: p.reblogs, notify: p.notify, languages: p.languages });
  }),
);

// Following by name or address (Mastodon's remote-follow helper); answers the followed Account.
accountsRelationships.post("/api/v1/follows", requireUser("write:follows"), async (c) => {
  const p = parse(z.object({ uri: z.string().min(1) }), await params(c));
  const me = currentUser(c).accountId;
  const target = await accountByReference(c.get("rt"), p.uri);
  await follow(c.get("rt"), me, target.id, {});
  return c.json(await accountEntity(c.get("rt"), target.id));
});

accountsRelationships.post(
  "/api/v1/accounts/:id/unfollow",
  requireUser("write:follows"),
  relationshipAction((rt, me, id) => unfollow(rt, me, id)),
);

accountsRelationships.post(
  "/api/v1/accounts/:id/remove_from_followers",
  requireUser("write:follows"),
  relationshipAction((rt, me, id) => removeFromFollowers(rt, me, id)),
);

accountsRelationships.post(
  "/api/v1/accounts/:id/block",
  requireUser("write:blocks"),
  relationshipAction((rt, me, id) => block(rt, me, id)),
);

accountsRelationships.post(
  "/api/v1/accounts/:id/unblock",
  requireUser("write:blocks"),
  relationshipAction((rt, me, id) => unblock(rt, me, id)),
);

/** About 100 years: longer is no different from forever, and keeps the end a valid date. */
const MAX_MUTE_SECONDS = 3_155_760_000;

const muteSchema = z.object({
  notifications: zBool(),
  duration: zInt().pipe(z.number().min(-MAX_MUTE_SECONDS).max(MAX_MUTE_SECONDS).optional()),
});

accountsRelationships.post(
  "/api/v1/accounts/:id/mute",
  requireUser("write:mutes"),
  relationshipAction((rt, me, id, raw) => {
    const p = parse(muteSchema, raw);
    return mute(rt, me, id, { notifications: p.notifications, duration: p.duration });
  }),
);

accountsRelationships.post(
  "/api/v1/accounts/:id/unmute",
  requireUser("write:mutes"),
  relationshipAction((rt, me, id) => unmute(rt, me, id)),
);

const noteSchema = z.object({ comment: zText() });

accountsRelationships.post(
  "/api/v1/accounts/:id/note",
  requireUser("write:accounts"),
  relationshipAction((rt, me, id, raw) => setAccountNote(rt, me, id, parse(noteSchema, raw).comment)),
);

accountsRelationships.get("/api/v1/accounts/relationships", requireUser("read:follows"), async (c) => {
  const p = parse(z.object({ id: zIds(), with_suspended: zBool() }), await params(c));
  const ids = p.id ?? [];
  return c.json(
    (await loadRelationshipViews(c.get("rt"), currentUser(c).accountId, ids, { withSuspended: p.with_suspended })).map(
      renderRelationship,
    ),
  );
});

accountsRelationships.get("/api/v1/accounts/familiar_followers", requireUser("read:follows"), async (c) => {
  const p = parse(z.object({ id: zIds() }), await params(c));
  const results = await familiarFollowers(c.get("rt"), currentUser(c).accountId, p.id ?? []);
  const rendered = await accountEntities(
    c.get("rt"),
    results.flatMap((r) => r.accountIds),
  );
  const byId = new Map(rendered.map((a) => [a.id, a]));
  return c.json(results.map((r) => ({ id: r.id, accounts: r.accountIds.flatMap((id) => byId.get(id) ?? []) })));
});

accountsRelationships.get("/api/v1/accounts/:id/followers", tokenIfGiven("read:accounts"), async (c) => {
  const page = pageParams(await params(c), ACCOUNT_PAGE);
  return accountPage(c, await listFollows(c.get("rt"), c.req.param("id")!, "followers", viewerId(c), page));
});

accountsRelationships.get("/api/v1/accounts/:id/following", tokenIfGiven("read:accounts"), async (c) => {
  const page = pageParams(await params(c), ACCOUNT_PAGE);
  return accountPage(c, await listFollows(c.get("rt"), c.req.param("id")!, "following", viewerId(c), page));
});
