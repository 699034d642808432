// Endorsements (featured profiles): featuring accounts on one's profile and listing them. `/pin`
// and `/unpin` are the names before Mastodon 4.4, kept for older apps.
import type { Handler } from "hono";
import { type AppEnv, type Ctx, params, router } from "../../http/hono.ts";
import { renderRelationship } from "../../serializers/relationship.ts";
import { endorse, listEndorsements, unendorse } from "../../services/accounts/endorsements.ts";
import { loadRelationshipView } from "../../services/relationships/views.ts";
import { ACCOUNT_PAGE, accountPage } from "../account_pages.ts";
import { currentUser, requireUser, tokenIfGiven } from "../auth.ts";
import { pageParams } from "../pagination.ts";

export const endorsements = router();

const featureAction =
  (action: typeof endorse): Handler<AppEnv> =>
  async (c) => {
    const me = currentUser(c).accountId;
    const id = c.req.param("id")!;
    await action(c.get("rt"), me, id);
    return c.json(renderRelationship(await loadRelationshipView(c.get("rt"), me, id)));
  };

endorsements.post("/api/v1/accounts/:id/endorse", requireUser("write:accounts"), featureAction(endorse));
endorsements.post("/api/v1/accounts/:id/unendorse", requireUser("write:accounts"), featureAction(unendorse));
endorsements.post("/api/v1/accounts/:id/pin", requireUser("write:accounts"), featureAction(endorse));
endorsements.post("/api/v1/accounts/:id/unpin", requireUser("write:accounts"), featureAction(unendorse));

/** `limit=0` asks for every endorsement at once, without pages, as Mastodon's web app does. */
async function endorsementPage(c: Ctx, accountId: string) {
  const page = pageParams(await params(c), { ...ACCOUNT_PAGE, zeroMeansAll: true });
  return accountPage(c, await listEndorsements(c.get("rt"), accountId, page));
}

endorsements.get("/api/v1/endorsements", requireUser("read:accounts"), (c) =>
  endorsementPage(c, currentUser(c).accountId),
);

endorsements.get("/api/v1/accounts/:id/endorsements", tokenIfGiven("read:accounts"), (c) =>
  endorsementPage(c, c.req.param("id")!),
);
