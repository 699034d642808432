// Access tokens. They never expire; revoking one takes effect in every process at once.
import type { Db } from "../../db/index.ts";
import { newId } from "../../domain/ids.ts";
import { randomToken, sha256 } from "../../domain/secrets.ts";
import type { Runtime } from "../../runtime.ts";
import { invalidateAuth } from "./authenticate.ts";

export interface IssuedToken {
  id: string;
  token: string;
  scopes: string[];
  createdAt: Date;
}

export async function issueToken(
  rt: Runtime,
  input: { applicationId: string | null; userId: string | null; scopes: string[] },
  db = rt.db,
): Promise<IssuedToken> {
  const token = randomToken();
  const id = newId();
  const createdAt = new Date();
  await db
    .insertInto("oauth_access_tokens")
    .values({
      id,
      token_hash: sha256(token),
      application_id: input.applicationId,
      user_id: input.userId,
      scopes: input.scopes.join(" "),
      created_at: createdAt,
      revoked_at: null,
      last_used_at: null,
    })
    .execute();
  return { id, token, scopes: input.scopes, createdAt };
}

/** Revokes a token, and its push subscription; every process stops accepting it at once. */
export async function revokeTokenById(rt: Runtime, id: string): Promise<void> {
  await rt.db.transaction().execute(async (trx) => {
    await trx
      .updateTable("oauth_access_tokens")
      .set({ revoked_at: new Date() })
      .where("id", "=", id)
      .where("revoked_at", "is", null)
      .execute();
    await trx.deleteFrom("push_subscriptions").where("access_token_id", "=", id).execute();
  });
  await invalidateAuth(rt);
}

/**
 * Revokes every live token of a user (of one app, when given), and their push subscriptions, in the
 * caller's transaction; the caller calls invalidateAuth once it has committed.
 */
export async function revokeUserTokens(db: Db, userId: string, applicationId?: string): Promise<void> {
  let tokens = db
    .selectFrom("oauth_access_tokens")
    .select("id")
    .where("user_id", "=", userId)
    .where("revoked_at", "is", null);
  if (applicationId) tokens = tokens.where("application_id", "=", applicationId);
  const ids = (await tokens.execute()).map((t) => t.id);
  if (ids.length === 0) return;
  await db.updateTable("oauth_access_tokens").set({ revoked_at: new Date() }).where("id", "in", ids).execute();
  await db.deleteFrom("push_subscriptions").where("access_token_id", "in", ids).execute();
}
