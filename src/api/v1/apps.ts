// POST /api/v1/apps (registration) and GET /api/v1/apps/verify_credentials.
import { z } from "zod";
import { notFound } from "../../domain/errors.ts";
import { splitRedirectUris } from "../../domain/redirect_uris.ts";
import { parseScopes } from "../../domain/scopes.ts";
import { params, router } from "../../http/hono.ts";
import { parse, zText } from "../../http/validate.ts";
import { renderApplication, renderCredentialApplication } from "../../serializers/application.ts";
import { createApplication, findApplication } from "../../services/auth/apps.ts";
import { vapidKeys } from "../../services/push/vapid.ts";
import { requireToken } from "../auth.ts";

export const apps = router();

// A list given as one string (Mastodon splits it on whitespace) or as an array.
const stringOrList = z.union([z.string(), z.array(z.string())]).optional();

const createSchema = z.object({
  // Absent values are validation failures (422), as in Mastodon, not missing parameters (400).
  client_name: zText(),
  redirect_uris: stringOrList,
  scopes: stringOrList,
  website: zText(),
});

apps.post("/api/v1/apps", async (c) => {
  const p = parse(createSchema, await params(c));
  const app = await createApplication(c.get("rt"), {
    name: p.client_name ?? "",
    redirectUris: splitRedirectUris(p.redirect_uris ?? []),
    scopes: parseScopes(typeof p.scopes === "string" ? p.scopes : p.scopes?.join(" ")),
    website: p.website,
  });
  return c.json(renderCredentialApplication(app, (await vapidKeys(c.get("rt"))).publicKey));
});

apps.get("/api/v1/apps/verify_credentials", requireToken(), async (c) => {
  const id = c.get("auth")!.applicationId;
  const app = id ? await findApplication(c.get("rt"), { id }) : null;
  if (!app) throw notFound();
  return c.json(renderApplication(app, (await vapidKeys(c.get("rt"))).publicKey));
});
