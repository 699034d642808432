// The apps a user has authorized (those holding a live token of theirs), and taking that back:
// every token the app holds for the user is revoked, and codes it has not exchanged yet die too.
import { notFound } from "../../domain/errors.ts";
import type { Runtime } from "../../runtime.ts";
import { invalidateAuth } from "./authenticate.ts";
import { revokeUserTokens } from "./tokens.ts";

export interface AuthorizedApp {
  id: string;
  name: string;
  website: string | null;
  scopes: string[];
  authorizedAt: Date;
  lastUsedAt: Date | null;
}

export async function listAuthorizedApps(rt: Runtime, userId: string): Promise<AuthorizedApp[]> {
  const rows = await rt.db
    .selectFrom("oauth_access_tokens as t")
    .innerJoin("oauth_applications as a", "a.id", "t.application_id")
    .select(["a.id", "a.name", "a.website", "t.scopes", "t.created_at", "t.last_used_at"])
    .where("t.user_id", "=", userId)
    .where("t.revoked_at", "is", null)
    .orderBy("t.id")
    .execute();
  const apps = new Map<string, AuthorizedApp>();
  for (const r of rows) {
    const app = apps.get(r.id) ?? {
      id: r.id,
      name: r.name,
      website: r.website,
      scopes: [],
      authorizedAt: r.created_at,
      lastUsedAt: null,
    };
    app.scopes = [...new Set([...app.scopes, ...r.scopes.split(" ").filter(Boolean)])];
    if (r.last_used_at && (!app.lastUsedAt || r.last_used_at > app.lastUsedAt)) app.lastUsedAt = r.last_used_at;
    apps.set(r.id, app);
  }
  return [...apps.values()];
}

/** Revokes the app's access to the user's account; its tokens are refused at once, in every process. */
export async function revokeAuthorizedApp(rt: Runtime, userId: string, applicationId: string): Promise<void> {
  const held = await rt.db
    .selectFrom("oauth_access_tokens")
    .select("id")
    .where("user_id", "=", userId)
    .where("application_id", "=", applicationId)
    .where("revoked_at", "is", null)
    .executeTakeFirst();
  if (!held) throw notFound();
  await rt.db.transaction().execute(async (trx) => {
    await revokeUserTokens(trx, userId, applicationId);
    await trx
      .updateTable("oauth_access_grants")
      .set({ used_at: new Date() })
      .where("user_id", "=", userId)
      .where("application_id", "=", applicationId)
      .where("used_at", "is", null)
      .execute();
  });
  await invalidateAuth(rt);
}
